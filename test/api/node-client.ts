/**
 * Starts the Node host on a free port with an in-memory store and returns an `Api` that
 * sends real HTTP requests to it.
 */
import type { Server } from 'node:http'
import { createApp, nodePlatform, serve, type NodePlatformOptions, type ServeOptions } from '../../sw/host/node.ts'
import type { AppOptions, OutpostApp } from '../../sw/app.ts'
import { fromWire, toWire, type Api, type WireRequest } from './harness.ts'

/** The body as Node's fetch takes it: text, bytes or a FormData with Blob parts. */
function wireBody(w: WireRequest): string | Uint8Array<ArrayBuffer> | FormData | undefined {
  if (w.form) {
    const fd = new FormData()
    for (const p of w.form) {
      if (p.base64 === undefined) fd.append(p.name, p.value ?? '')
      else fd.append(p.name, new Blob([Buffer.from(p.base64, 'base64')], { type: p.type ?? '' }), p.filename ?? 'blob')
    }
    return fd
  }
  if (w.bytesBase64 !== undefined) return new Uint8Array(Buffer.from(w.bytesBase64, 'base64'))
  return w.body
}

export const NODE_ADMIN_PASSWORD = 'test-admin-password'

/** An HTTP Basic `Authorization` value for `login:password` (UTF-8, as the host decodes it). */
export const basicAuth = (login: string, password: string) => 'Basic ' + Buffer.from(`${login}:${password}`).toString('base64')

/** The administrator's `Authorization` value on a host started with `NODE_ADMIN_PASSWORD`. */
export const NODE_ADMIN_AUTH = basicAuth('administrator', NODE_ADMIN_PASSWORD)

export async function startNodeApi(opts: { dataDir?: string; platform?: Partial<NodePlatformOptions>; serve?: Partial<ServeOptions>; app?: AppOptions } = {}): Promise<{ api: Api; server: Server; base: string; app: OutpostApp }> {
  // The API suites run with the nested-unit-of-work guard, so a nesting fails there instead of hanging.
  const app = createApp(nodePlatform({ dataDir: opts.dataDir, admin: { password: NODE_ADMIN_PASSWORD, mustChange: false },
    log: () => {}, guardUnitsOfWork: true, ...opts.platform }), opts.app)
  const server = await serve(app, { port: 0, ...opts.serve })
  const addr = server.address()
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
  return { api: httpApi(base), server, base, app }
}

/** An `Api` sending real HTTP requests to the Outpost host at `base`. */
export function httpApi(base: string, adminPassword = NODE_ADMIN_PASSWORD): Api {
  // A one-cookie jar: what a browser keeps for requests made with credentials 'include'.
  const jar = new Map<string, string>()
  return {
    host: 'node',
    origin: base,
    async request(method, path, opts = {}) {
      const w = toWire(method, path, opts, adminPassword)
      if (w.credentials === 'include' && jar.size) {
        w.headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
      }
      const res = await fetch(base + w.path, { method: w.method, headers: w.headers, body: wireBody(w) })
      if (w.credentials === 'include') {
        for (const line of res.headers.getSetCookie()) {
          const [pair, ...attrs] = line.split(';').map((s) => s.trim())
          const [k, ...v] = pair!.split('=')
          if (!v.join('=') || attrs.includes('Max-Age=0')) jar.delete(k!)
          else jar.set(k!, v.join('='))
        }
      }
      const headers: Record<string, string> = {}
      res.headers.forEach((v, k) => { headers[k] = v })
      const bytes = new Uint8Array(await res.arrayBuffer())
      return fromWire(res.status, headers, new TextDecoder().decode(bytes), Buffer.from(bytes).toString('base64'))
    },
  }
}
