/**
 * A plain static file server for the e2e specs: `dist/` under a path prefix (`/demo/`), as a
 * GitHub-Pages-style host serves it. It knows nothing of the API (no Node host behind it):
 * whatever answers `/demo/api/…` is the service worker. Not a spec file.
 */
import { createServer, type Server } from 'node:http'
import { readFileSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { extname, join, normalize } from 'node:path'
import type { AddressInfo } from 'node:net'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.webmanifest': 'application/manifest+json', '.wasm': 'application/wasm', '.png': 'image/png', '.svg': 'image/svg+xml',
}

export interface StaticHost { url: string; close(): Promise<void> }

/**
 * Serves `dir` at `prefix` on 127.0.0.1 (a free port); anything outside the prefix is a 404.
 * Paths (under the prefix) that `refuse` picks are answered 404 although the file exists: a broken host.
 */
export async function serveStatic(dir: string, prefix: string, refuse: (path: string) => boolean = () => false): Promise<StaticHost> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
      if (!path.startsWith(prefix) || refuse(path.slice(prefix.length))) return void res.writeHead(404).end('Not found')
      let file = normalize(join(dir, path.slice(prefix.length)))
      if (!file.startsWith(normalize(dir))) return void res.writeHead(404).end('Not found')
      if ((await stat(file).catch(() => undefined))?.isDirectory()) file = join(file, 'index.html')
      const body = await readFile(file).catch(() => undefined)
      if (!body) return void res.writeHead(404).end('Not found')
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' }).end(body)
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections() }) }
}

/** The app's own script as the build named it (`assets/main-….js`): the module script `dist/index.html` loads. */
export function appEntryScript(dist = 'dist'): string {
  const m = /<script type="module"[^>]*src="\.\/(assets\/[^"]+\.js)"/.exec(readFileSync(`${dist}/index.html`, 'utf8'))
  if (!m) throw new Error(`No module script in ${dist}/index.html: build the app first (npx vite build).`)
  return m[1]!
}
