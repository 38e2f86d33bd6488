/**
 * @module platform/platform
 * What a host gives the backend. `sw/` reaches the outside world only through this object,
 * so the same code runs in the service worker, in Node and in tests.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { Store } from '../store/store.ts'
import type { GdalEngine } from '../../wasm/gdal.ts'
import type { CanvasFactory } from '../image/canvas.ts'
import type { EpsgSource } from '../geo/srs.ts'
import type { OutboundLimits } from '../core/outbound.ts'

export interface AdminProvision {
  /** The administrator's password on a fresh database. */
  password: string
  /** True when the person must choose a new password before anything else (browser host). */
  mustChange: boolean
  /** Apply `password` on every start, not only on a fresh database (Node with OUTPOST_ADMIN_PASSWORD). */
  force?: boolean
}

/** A value carried along one chain of asynchronous calls (the shape of Node's `AsyncLocalStorage`). */
export interface AsyncContext<T> {
  run<R>(value: T, fn: () => R): R
  getStore(): T | undefined
}

export interface Platform {
  /** Which host runs the backend: reported by `pkg_version`. */
  readonly host: 'service-worker' | 'node'
  readonly store: Store
  /** Starts SQLite-WASM on first call; later calls share it. */
  sqlite(): Promise<Sqlite3Static>
  /**
   * Starts GDAL-WASM on first call; later calls share it. Node runs it in a worker thread,
   * the service worker in itself (it has no `Worker`): see docs/architecture.md.
   */
  gdal(): Promise<GdalEngine>
  /** A new transparent drawing surface (OffscreenCanvas in the worker, Skia in Node). */
  canvas: CanvasFactory
  /**
   * A native zlib inflate, when the host has one (Node: `node:zlib`); raster tiles decode their
   * DEFLATE blocks with it instead of geotiff's JavaScript pako.
   */
  readonly inflate?: (data: Uint8Array) => Uint8Array
  /** Looks EPSG codes up in the host's EPSG index (reprojection of any code). */
  readonly epsg: EpsgSource
  readonly admin: AdminProvision
  /** Largest accepted upload in bytes; `FILE_UPLOAD.maxSize` when absent (tests set a small one). */
  readonly uploadMaxSize?: number
  /**
   * Outbound HTTP: how the backend reaches other servers (a team's server it syncs with). The
   * worker's is its network fetch, which does not pass through its own fetch handler; tests
   * wrap it to cut connections at chosen points.
   */
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>
  /**
   * Outbound HTTP that reaches this app's own API: what the WMS client uses, so a WMS service of
   * this app can be its remote. Absent where `fetch` of the host's own address already reaches
   * it (Node); the worker's answers its own origin's `/api/` in-process (host/sw-inward.ts).
   * Sync keeps `fetch`: there the origin's API over the network is the team's server.
   */
  selfFetch?(input: RequestInfo | URL, init?: RequestInit): Promise<Response>
  /**
   * Limits of the answers read through `fetch` (`core/outbound.ts`); the defaults when absent.
   * A file's size cap is `uploadMaxSize` unless set here.
   */
  readonly outboundLimits?: Partial<Record<'json' | 'listing' | 'file' | 'wms', OutboundLimits>>
  /** Most WMS images kept for offline use (`MAX_KEPT` of ogc/client/getmap.ts when absent; tests set a few). */
  readonly wmsKept?: number
  /** The AES-GCM key secrets are encrypted with at rest (remote passwords); the host keeps it. */
  secretKey(): Promise<CryptoKey>
  /** Where the app itself is served from, in the browser (the worker's origin); absent in Node. */
  readonly origin?: string
  /** Browser origins allowed to call the API across origins (CORS, reference §1.5). */
  readonly corsOrigins?: readonly string[]
  /**
   * A file shipped with the app (`public/`), such as `basemap/world.pmtiles`; `undefined` when
   * the host has none. The worker reads its precache, Node the built app or the source tree.
   */
  asset?(name: string): Promise<Uint8Array | undefined>
  /** Pending upload bytes anonymous users may add to; `DEFAULT_UPLOAD_QUOTA` when absent. */
  readonly uploadQuota?: number
  /**
   * Async-local storage (Node's `AsyncLocalStorage`), when the host has it: the data port keeps
   * its open units of work there, so a nested one fails at once instead of waiting behind
   * itself forever (sw/sqlite/uow.ts). The service worker has none.
   */
  readonly asyncContext?: <T>() => AsyncContext<T>
  /** Current time; injected so tests can fix it. */
  now(): Date
  /** Where unexpected errors are reported. */
  log(message: string, err?: unknown): void
}
