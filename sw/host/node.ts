/**
 * @module host/node
 * The Node host: an HTTP server on 127.0.0.1 (@hono/node-server) that passes `/api/`
 * requests to the backend and serves the built app (dist/) for everything else.
 */
import { createServer, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { readFile, stat } from 'node:fs/promises'
import { inflateSync } from 'node:zlib'
import { AsyncLocalStorage } from 'node:async_hooks'
import { extname, join, normalize } from 'node:path'
import { getRequestListener, RequestError, type Http2Bindings, type HttpBindings } from '@hono/node-server'
import { createApp as createBackend, type AppOptions, type OutpostApp } from '../app.ts'
import type { AdminProvision, Platform } from '../platform/platform.ts'
import { MemoryStore } from '../store/memory.ts'
import type { Store } from '../store/store.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { createGdalLoader } from '../../wasm/gdal.ts'
import { gdalThread } from '../../wasm/gdal-thread-node.ts'
import { randomPassword } from '../auth/password.ts'
import { FileStore } from './node-store.ts'
import { nodeCanvas } from './node-canvas.ts'
import { nodeEpsg } from './node-epsg.ts'
import { nodeSecretKey } from './node-secret.ts'
import { s3Blobs, type S3Config } from './node-s3-blobs.ts'
import { clientAddress } from './node-proxy.ts'
import type { Cidr } from './node-outbound.ts'
import { PROJECT_ROOT } from './node-root.ts'
import { SET_COOKIE_COPY } from '../auth/middleware.ts'
import { isApiPath, json, requestId } from '../core/http.ts'
import { ApiError, internalServerError } from '../core/error.ts'
import type { SpatialDbOptions } from '../postgres/external/index.ts'
import { badRequest } from '../upload/errors.ts'

export interface NodePlatformOptions {
  /**
   * Refuse a nested unit of work at once instead of hanging (sw/sqlite/uow.ts), through one
   * AsyncLocalStorage. Tests turn it on; servers leave it off, since on Node 20 it puts promise
   * hooks on every promise of the process (the full API suite with one instance per app slowed
   * until an upload's connection was reset). @default false
   */
  guardUnitsOfWork?: boolean
  /** Folder for the data; `undefined` keeps everything in memory. */
  dataDir?: string
  /**
   * The data lives in a database shared with other processes (`--database`): `dataDir` then
   * keeps only `secret.key` (which every process of the team's server must share), so it is
   * neither a store nor locked, and the platform's store is in memory.
   */
  sharedDatabase?: boolean
  admin: AdminProvision
  log?: (message: string, err?: unknown) => void
  /** Largest accepted upload in bytes. @default FILE_UPLOAD.maxSize */
  uploadMaxSize?: number
  /** Outbound HTTP to other servers. @default globalThis.fetch */
  fetch?: Platform['fetch']
  /** Browser origins allowed to call the API across origins (CORS). @default none */
  corsOrigins?: string[]
  /** Pending upload bytes anonymous users may add to. @default DEFAULT_UPLOAD_QUOTA (1 GiB) */
  uploadQuota?: number
  /** Limits of answers read from other servers. @default OUTBOUND_LIMITS (core/outbound.ts) */
  outboundLimits?: Platform['outboundLimits']
  /** Most WMS images kept for offline use (tests set a few). */
  wmsKept?: number
}

/** The process's one async-local storage: each instance adds its own hooks to every promise. */
let asyncLocal: AsyncLocalStorage<unknown> | undefined
const processContext = <T>() => (asyncLocal ??= new AsyncLocalStorage()) as AsyncLocalStorage<T>

export function nodePlatform(opts: NodePlatformOptions): Platform {
  const store: Store = opts.dataDir && !opts.sharedDatabase ? new FileStore(opts.dataDir) : new MemoryStore()
  return {
    host: 'node',
    store,
    sqlite: createSqliteLoader(),
    gdal: createGdalLoader(async () => gdalThread()),
    canvas: nodeCanvas,
    inflate: (data) => inflateSync(data),
    epsg: nodeEpsg,
    admin: opts.admin,
    uploadMaxSize: opts.uploadMaxSize,
    fetch: opts.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    secretKey: nodeSecretKey(opts.dataDir),
    corsOrigins: opts.corsOrigins,
    asset: readAsset,
    uploadQuota: opts.uploadQuota,
    outboundLimits: opts.outboundLimits,
    wmsKept: opts.wmsKept,
    asyncContext: opts.guardUnitsOfWork ? processContext : undefined,
    now: () => new Date(),
    log: opts.log ?? ((message, err) => console.error(message, err ?? '')),
  }
}

/**
 * Checks a `--database` URL before anything starts: `postgres://user:pass@host:port/db`
 * (or `postgresql://`); the message never repeats the password.
 */
export function checkDatabaseUrl(url: string): void {
  let parsed: URL | undefined
  try { parsed = new URL(url) } catch { /* below */ }
  if (!parsed || !['postgres:', 'postgresql:'].includes(parsed.protocol) || parsed.pathname.length < 2) {
    throw new Error(`Invalid database URL '${redactUrl(url)}': expected postgres://user:password@host:port/database.`)
  }
}

/** `url` with its password (in the authority or as `?password=`) replaced by `***`, for messages. */
export function redactUrl(url: string): string {
  // Up to the authority's last '@': a password may hold one unencoded (pg's parser allows it).
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^/?#]*@/i, '$1***@').replace(/([?&]password=)[^&#]*/i, '$1***')
}

/**
 * The data port of `--database <url>`: PostgreSQL (sw/postgres), opened and migrated when the
 * app opens its services. A database that cannot be reached or refuses us fails with one line;
 * so does the blob store of `opts.blobs` (`--blobs s3://…`), checked first.
 * Imported only then: a host on SQLite never loads the driver.
 */
export function postgresData(url: string, opts: { maxConnections?: number; blobs?: S3Config } = {}): NonNullable<AppOptions['data']> {
  return async (platform) => {
    const { openPostgresData, reasonOf } = await import('../postgres/port.ts')
    const blobs = opts.blobs && s3Blobs(opts.blobs)
    // A wrong endpoint, bucket or key stops the start in one line (the message names the store, never the key).
    await blobs?.check()
    try {
      return await openPostgresData(url, { asyncContext: platform.asyncContext, maxConnections: opts.maxConnections, blobs })
    } catch (err) {
      throw new Error(`Cannot open the database ${redactUrl(url)}: ${reasonOf(err)}`, { cause: err })
    }
  }
}

/**
 * Teams' own PostGIS databases (`spatialdb_*` resources, issue 24; sw/postgres/external): the
 * Node host always offers them, on SQLite as with `--database`. Loaded when the services open.
 * `options.guard`: where their connections may go (a host listening beyond loopback: node-outbound.ts).
 */
export const nodeSpatialDb = (options: SpatialDbOptions = {}): NonNullable<AppOptions['spatialDb']> =>
  async () => (await import('../postgres/external/index.ts')).openSpatialDb(options)

/** The backend as the Node host runs it: `createApp` (sw/app.ts) with the PostGIS access of `nodeSpatialDb` unless `opts` gives another. */
export function createApp(platform: Platform, opts: AppOptions = {}): OutpostApp {
  return createBackend(platform, { spatialDb: nodeSpatialDb(), ...opts })
}

/** The app's shipped files: from the build (`dist/`) when there is one, else from `public/`. */
const ASSET_DIRS = [new URL('dist/', PROJECT_ROOT), new URL('public/', PROJECT_ROOT)]

async function readAsset(name: string): Promise<Uint8Array | undefined> {
  if (!/^[\w.-]+(\/[\w.-]+)*$/.test(name) || name.includes('..')) return undefined
  for (const dir of ASSET_DIRS) {
    const bytes = await readFile(new URL(name, dir)).catch(() => undefined)
    if (bytes) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }
  return undefined
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.webmanifest': 'application/manifest+json', '.png': 'image/png', '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm', '.ico': 'image/x-icon', '.data': 'application/octet-stream', '.txt': 'text/plain',
}

/** A file of the built app; unknown paths get the app shell, which routes on the client. */
async function serveStatic(staticDir: string, pathname: string): Promise<Response> {
  let rel: string
  try {
    rel = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '')
  } catch {
    throw badRequest('The request path is not valid percent-encoding.')
  }
  if (rel.startsWith('..')) rel = ''
  let file = join(staticDir, rel)
  const st = await stat(file).catch(() => undefined)
  if (!st?.isFile()) file = join(staticDir, 'index.html')
  const body = await readFile(file).catch(() => undefined)
  if (!body) return new Response('The app is not built: run `npm run build`.\n', { status: 404, headers: { 'content-type': 'text/plain' } })
  const headers: Record<string, string> = { 'content-type': MIME[extname(file)] ?? 'application/octet-stream' }
  // The worker script must never be cached by HTTP, or an update would not reach clients.
  // Nor the pages (the app's and the embed page), which name the hashed files of the current build.
  if (file.endsWith('sw.js') || file.endsWith('.html')) headers['cache-control'] = 'no-cache'
  return new Response(new Uint8Array(body), { headers })
}

/** NextGIS Web's JSON error body for anything that fails in the host itself. */
function errorResponse(err: unknown, log: Platform['log']): Response {
  const apiErr = err instanceof ApiError ? err : err instanceof RequestError ? badRequest(err.message) : internalServerError(err)
  if (apiErr.status >= 500) log('The Node host failed to answer a request', err)
  return json(apiErr.toBody(requestId()), apiErr.status)
}

export interface ServeOptions {
  port: number
  /** The address to listen on. @default '127.0.0.1' */
  host?: string
  /** PEM certificate and key: HTTPS instead of HTTP. */
  tls?: { cert: Uint8Array; key: Uint8Array }
  staticDir?: string
  /** Where unexpected errors of the host are reported. @default console.error */
  log?: Platform['log']
  /**
   * The process is the server's own (`node-main.ts`): node-server's lightweight `Request` and
   * `Response` replace the globals, so an answer built from a string or bytes is written as it
   * is, without the web stream Node's own `Response` makes of every body (~0.06 ms a request).
   * Left off where the process is shared (tests, scripts). @default false
   */
  ownsGlobals?: boolean
  /**
   * Address ranges of reverse proxies whose `X-Forwarded-For` names the client (`--trust-proxy`);
   * from any other peer the header is ignored. @default none
   */
  trustProxy?: readonly Cidr[]
}

/**
 * Serves `app` over HTTP with @hono/node-server: request and response bodies stream, and no
 * request can end the process. A request node-server cannot turn into a `Request` (a
 * malformed Host header such as `x:99999`, `[` or `a%zz`) is a JSON 400; any other failure
 * of the host a JSON 500.
 */
export function serve(app: Pick<OutpostApp, 'fetch'>, opts: ServeOptions): Promise<Server> {
  const host = opts.host ?? '127.0.0.1'
  const log = opts.log ?? ((message, err) => console.error(message, err ?? ''))
  const fetch = async (request: Request, env: HttpBindings | Http2Bindings): Promise<Response> => {
    try {
      const pathname = new URL(request.url).pathname
      // The client's address, for the per-address login limit (the backend cannot see sockets):
      // the socket's peer, or behind a trusted proxy the address it forwarded (node-proxy.ts).
      const forwarded = env.incoming.headers['x-forwarded-for']
      const peer = clientAddress(env.incoming.socket?.remoteAddress, Array.isArray(forwarded) ? forwarded.join(',') : forwarded, opts.trustProxy ?? [])
      const res = isApiPath(pathname) || !opts.staticDir ? await app.fetch(request, { peer }) : await serveStatic(opts.staticDir, pathname)
      // The backend's copy of Set-Cookie is for the worker only (auth/routes.ts).
      res.headers.delete(SET_COOKIE_COPY)
      return res
    } catch (err) {
      return errorResponse(err, log)
    }
  }
  const listener = getRequestListener(fetch, {
    hostname: host,
    overrideGlobalObjects: opts.ownsGlobals ?? false,
    errorHandler: (err) => errorResponse(err, log),
  })
  const server: Server = opts.tls ? createHttpsServer({ cert: Buffer.from(opts.tls.cert), key: Buffer.from(opts.tls.key) }, listener)
    : createServer(listener)
  // A socket error of one client (a reset mid-request) concerns that client only.
  server.on('clientError', (err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
    else socket.destroy(err)
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, host, () => resolve(server))
  })
}

export { randomPassword }
