/**
 * @module mvt/cache
 * Cut tiles kept in memory (least recently used first out), one entry per layer and tile,
 * and their exact invalidation. The layer's storage notes the fid and the old geometry of
 * every feature inserted, updated or deleted, whatever wrote it (`GpkgTables.takeChanges`).
 * Before a layer's tiles are used after its database changed, the notes are taken: the old
 * geometry's box and the current one (from the feature table) invalidate exactly the cached
 * tiles they touch.
 */
import type { Bbox } from '../geo/geometry.ts'
import { gpkgBbox } from '../geo/gpkg.ts'
import { reprojectBbox } from '../geo/reproject.ts'
import { bboxesIntersect } from '../geo/tile.ts'
import { RtreeNodes } from './select.ts'
import type { GpkgTables } from '../feature/types.ts'
import type { IndexBuilder, TileIndex } from './tile-index.ts'

/** Cached bytes across all layers. */
const MAX_BYTES = 64 << 20
/** Beyond this many changed features at once, a layer's tiles are all dropped instead. */
const MAX_DIRTY = 20_000
/**
 * Memory the layers' tile indexes may hold together (least recently used dropped first), by
 * host: on the Node host a server's share (a 1,000,000-point layer's index is ~130 MB); in the
 * worker what the device can spare — 160 MiB where the browser reports 8 GB of memory or more
 * (`navigator.deviceMemory`, Chromium's top figure), else 64 MiB (a ~500,000-point layer).
 */
export function indexBudget(host: 'service-worker' | 'node'): number {
  if (host === 'node') return 256 << 20
  const memory = (globalThis.navigator as { deviceMemory?: number } | undefined)?.deviceMemory ?? 0
  return memory >= 8 ? 160 << 20 : 64 << 20
}

/** A tile index unused this long is dropped (a layer deleted, a map closed): built again when asked for. */
const INDEX_IDLE_MS = 10 * 60_000

interface Entry { layer: number; box: Bbox; bytes: Uint8Array }

/** The `connection` of a layer kept by its token alone (`syncToken`). */
const GENERIC = {}

interface LayerState {
  /** The connection whose change notes feed this state; a reopened database starts over. */
  connection: object
  /** The layer's `GpkgStorage.token()` the entries were checked at. */
  token: string
  signature: string
  /** Decoded R*Tree nodes, valid for `token`. */
  nodes: RtreeNodes
  /** The layer's features in memory (mvt/tile-index.ts), or the builder reading them. */
  index?: TileIndex
  builder?: IndexBuilder
  /** The index would not fit the budget (known for this connection). */
  tooBig?: boolean
}

export class TileCache {
  #entries = new Map<string, Entry>()
  #layers = new Map<number, LayerState>()
  #bytes = 0
  #swept = 0

  /** `indexBudget`: memory the layers' tile indexes may hold together. */
  constructor(readonly maxBytes = MAX_BYTES, readonly indexBudget = 64 << 20) {}

  /** Cached bytes (for tests and diagnostics). */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * Whether the layer's entries are known to be current without reading its database: no
   * write was saved since they were checked and its fields are the same.
   */
  isCurrent(layer: number, token: string, signature: string): boolean {
    const s = this.#layers.get(layer)
    return !!s && s.token === token && s.signature === signature
  }

  /**
   * Brings the layer's entries up to date with the layer's tables `t` at `token`; runs inside a read of the
   * layer database. Returns the R*Tree node reader valid for this token.
   */
  sync(layer: number, t: GpkgTables, token: string, signature: string, srs: number): RtreeNodes {
    let s = this.#layers.get(layer)
    if (!s || s.connection !== t.connection) {
      t.takeChanges() // starts the notes (or forgets older ones): everything of the layer is dropped anyway
      this.dropLayer(layer)
      s = { connection: t.connection, token, signature, nodes: new RtreeNodes() }
      this.#layers.set(layer, s)
      return s.nodes
    }
    if (s.signature !== signature) {
      this.dropLayer(layer, false)
      s.signature = signature
      this.dropIndex(s)
    }
    if (s.token !== token) {
      this.#invalidate(layer, s, t, srs)
      s.token = token
      s.nodes = new RtreeNodes()
    }
    return s.nodes
  }

  /**
   * For a layer without GeoPackage storage (its features read through the feature port): its
   * entries stay while `token` (the layer's `FeatureLayer.token()`) and its fields do; any change
   * drops them all (no change notes to drop fewer by).
   */
  syncToken(layer: number, token: string, signature: string): void {
    if (this.isCurrent(layer, token, signature)) return
    this.dropLayer(layer)
    this.#layers.set(layer, { connection: GENERIC, token, signature, nodes: new RtreeNodes() })
  }

  /**
   * Drops the layer's entries touched by the features its storage noted, and hands their
   * fids to the layer's tile index.
   */
  #invalidate(layer: number, s: LayerState, t: GpkgTables, srs: number): void {
    const dirty = t.takeChanges()
    if (!dirty.length) return
    if (dirty.length > MAX_DIRTY) { this.dropLayer(layer, false); this.dropIndex(s); return }
    const fids = [...new Set(dirty.map((d) => d.fid))]
    s.builder?.changed(fids)
    if (s.index && !s.index.changed(t, fids)) this.dropIndex(s)
    const boxes: Bbox[] = []
    const add = (blob: Uint8Array | null) => {
      const b = blob ? gpkgBbox(blob) : null
      if (b) boxes.push(srs === 3857 ? b : reprojectBbox(b, srs, 3857))
    }
    for (const d of dirty) add(d.old)
    const now = t.byFids(fids, [])
    try {
      while (now.step()) add(now.blobView(1))
    } finally {
      now.finalize()
    }
    for (const [key, e] of this.#entries) {
      if (e.layer === layer && boxes.some((b) => bboxesIntersect(b, e.box))) this.#delete(key, e)
    }
  }

  /** The layer's tile index when it is built and current. */
  index(layer: number): TileIndex | undefined {
    const now = performance.now()
    if (now - this.#swept > 60_000) {
      this.#swept = now
      for (const s of this.#layers.values()) if (s.index && now - s.index.used > INDEX_IDLE_MS) this.dropIndex(s)
    }
    return this.#layers.get(layer)?.index
  }

  /**
   * Whether a tile index should be built for the layer: it has none, none is being built, and
   * it is not known to be too big. The caller then runs `startIndex`'s builder.
   */
  wantsIndex(layer: number): boolean {
    const s = this.#layers.get(layer)
    return !!s && !s.index && !s.builder && !s.tooBig
  }

  /** Whether the layer's tile index is being built. */
  indexing(layer: number): boolean {
    return !!this.#layers.get(layer)?.builder
  }

  /** Registers a builder for the layer; `finishIndex` takes its result if it is still the layer's. */
  startIndex(layer: number, builder: IndexBuilder): void {
    const s = this.#layers.get(layer)
    if (s) s.builder = builder
  }

  /** Whether `builder` still builds the layer's index (not dropped by a change of fields or connection). */
  isBuilding(layer: number, builder: IndexBuilder): boolean {
    return this.#layers.get(layer)?.builder === builder
  }

  /** Keeps a built index within the memory budget, dropping the least recently used others. */
  finishIndex(layer: number, builder: IndexBuilder, index: TileIndex | undefined): void {
    const s = this.#layers.get(layer)
    if (!s || s.builder !== builder) return
    s.builder = undefined
    if (!index || index.bytes > this.indexBudget) { s.tooBig = true; return }
    s.index = index
    const held = [...this.#layers.values()].filter((l) => l.index).sort((a, b) => a.index!.used - b.index!.used)
    let total = held.reduce((n, l) => n + l.index!.bytes, 0)
    for (const l of held) {
      if (total <= this.indexBudget) break
      if (l === s) continue
      total -= l.index!.bytes
      this.dropIndex(l)
    }
  }

  /** Forgets a layer's index or build (built again when tiles are asked for). */
  dropIndex(s: LayerState): void {
    s.index = undefined
    s.builder = undefined
  }

  get(key: string): Uint8Array | undefined {
    const e = this.#entries.get(key)
    if (!e) return undefined
    // Re-inserted: the map's order is the eviction order.
    this.#entries.delete(key)
    this.#entries.set(key, e)
    return e.bytes
  }

  /** Keeps a layer's tile; `box` is the padded tile box in EPSG:3857 it was cut from. */
  set(key: string, layer: number, box: Bbox, bytes: Uint8Array): void {
    const old = this.#entries.get(key)
    if (old) this.#delete(key, old)
    if (bytes.length > this.maxBytes / 4) return
    this.#entries.set(key, { layer, box, bytes })
    this.#bytes += bytes.length
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break
      this.#delete(k, e)
    }
  }

  /** Forgets the layer's tiles (and, with `forgetState`, what is known about its database). */
  dropLayer(layer: number, forgetState = true): void {
    for (const [key, e] of this.#entries) if (e.layer === layer) this.#delete(key, e)
    if (forgetState) this.#layers.delete(layer)
  }

  #delete(key: string, e: Entry): void {
    this.#entries.delete(key)
    this.#bytes -= e.bytes.length
  }
}
