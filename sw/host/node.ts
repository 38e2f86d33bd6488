/**
 * @module host/node
 * The Node host: an HTTP server on 127.0.0.1 that passes `/api/` requests to the backend
 * and serves the built app (dist/) for everything else.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { readFile, stat } from 'node:fs/promises'
import { extname, join, normalize } from 'node:path'
import { Readable } from 'node:stream'
import { createApp, type OutpostApp } from '../app.ts'
import type { AdminProvision, Platform } from '../platform/platform.ts'
import { MemoryStore } from '../store/memory.ts'
import type { Store } from '../store/store.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { createGdalLoader } from '../../wasm/gdal.ts'
import { initGdalNode } from '../../wasm/gdal-node.ts'
import { randomPassword } from '../auth/password.ts'
import { FileStore } from './node-store.ts'
import { SET_COOKIE_COPY } from '../auth/middleware.ts'
import { isApiPath } from '../core/http.ts'

export interface NodePlatformOptions {
  /** Folder for the data; `undefined` keeps everything in memory. */
  dataDir?: string
  admin: AdminProvision
  /** Create the demo data set on a fresh database. @default false */
  demo?: boolean
  log?: (message: string, err?: unknown) => void
  /** Largest accepted upload in bytes. @default FILE_UPLOAD.maxSize */
  uploadMaxSize?: number
}

export function nodePlatform(opts: NodePlatformOptions): Platform {
  const store: Store = opts.dataDir ? new FileStore(opts.dataDir) : new MemoryStore()
  return {
    host: 'node',
    store,
    sqlite: createSqliteLoader(),
    gdal: createGdalLoader(initGdalNode),
    admin: opts.admin,
    demo: opts.demo ?? false,
    uploadMaxSize: opts.uploadMaxSize,
    asset: readAsset,
    now: () => new Date(),
    log: opts.log ?? ((message, err) => console.error(message, err ?? '')),
  }
}

/** The app's shipped files: from the build (`dist/`) when there is one, else from `public/`. */
const ASSET_DIRS = [new URL('../../dist/', import.meta.url), new URL('../../public/', import.meta.url)]

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

async function serveStatic(staticDir: string, pathname: string, res: ServerResponse): Promise<void> {
  let rel = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '')
  if (rel.startsWith('..')) rel = ''
  let file = join(staticDir, rel)
  const st = await stat(file).catch(() => undefined)
  // Unknown paths get the app shell, which routes on the client.
  if (!st?.isFile()) file = join(staticDir, 'index.html')
  const body = await readFile(file).catch(() => undefined)
  if (!body) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('The app is not built: run `npm run build`.\n')
    return
  }
  const headers: Record<string, string> = { 'content-type': MIME[extname(file)] ?? 'application/octet-stream' }
  // The worker script must never be cached by HTTP, or an update would not reach clients.
  if (file.endsWith('sw.js') || file.endsWith('index.html')) headers['cache-control'] = 'no-cache'
  res.writeHead(200, headers).end(body)
}

/**
 * The request's URL. Joined as text: `new URL('//api/v1/', origin)` would read a path that
 * starts with two slashes (old QGIS plugins send them) as another host.
 */
function requestUrl(req: IncomingMessage, origin: string): URL {
  return new URL(origin + (req.url ?? '/'))
}

function toRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers()
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) v.forEach((x) => headers.append(k, x))
    else if (v !== undefined) headers.set(k, v)
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  return new Request(requestUrl(req, origin), {
    method: req.method, headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    // @ts-expect-error Node's fetch needs `duplex` for a streamed body; the DOM types lack it.
    duplex: 'half',
  })
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((v, k) => { if (k !== 'set-cookie' && k !== SET_COOKIE_COPY) headers[k] = v })
  const cookies = response.headers.getSetCookie()
  if (cookies.length) headers['set-cookie'] = cookies
  res.writeHead(response.status, headers)
  if (!response.body) { res.end(); return }
  // Streamed: a large export is sent as it is made, never held whole.
  const reader = response.body.getReader()
  res.once('close', () => { void reader.cancel().catch(() => undefined) })
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (!res.write(value)) await new Promise<void>((resolve) => { res.once('drain', resolve); res.once('close', resolve) })
    if (res.destroyed) return
  }
  res.end()
}

export interface ServeOptions {
  port: number
  host?: string
  staticDir?: string
}

export function serve(app: OutpostApp, opts: ServeOptions): Promise<Server> {
  const host = opts.host ?? '127.0.0.1'
  const server = createServer(async (req, res) => {
    const origin = `http://${req.headers.host ?? `${host}:${opts.port}`}`
    const pathname = requestUrl(req, origin).pathname
    try {
      if (isApiPath(pathname) || !opts.staticDir) {
        await writeResponse(res, await app.fetch(toRequest(req, origin)))
      } else {
        await serveStatic(opts.staticDir, pathname, res)
      }
    } catch (err) {
      console.error(err)
      if (!res.headersSent) res.writeHead(500).end()
    }
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, host, () => resolve(server))
  })
}

export { createApp, randomPassword }
