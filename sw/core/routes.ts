/**
 * @module core/routes
 * Route registration by the original's route names. Templates are written as the original
 * writes them (`/api/resource/{id}/feature/{fid}`); this module turns them into router paths
 * and keeps the table that `GET /api/component/pyramid/route` serves (reference §1.4).
 */
import type { Context, Hono } from 'hono'
import type { AppEnv } from './env.ts'
import { pageNotFound } from './error.ts'
import { isSafeIdText } from './limits.ts'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS'
export type Handler = (c: Context<AppEnv>) => Response | Promise<Response>

/** Numeric path segments as the original's `uint` matcher accepts them. */
const PARAM_PATTERNS: Record<string, string> = {
  id: '[0-9]+', fid: '[0-9]+', aid: '[0-9]+', vid: '[0-9]+', tid: '[0-9]+',
  z: '[0-9]+', x: '[0-9]+', y: '[0-9]+',
}

export class RouteTable {
  #names = new Map<string, string[]>()

  constructor(private app: Hono<AppEnv>) {}

  /**
   * Registers `handler` for `methods` on the template, under the original's route `name`.
   * `patterns` overrides the path pattern of named params (an upload's `{id}` is hex, not numeric).
   */
  add(name: string, template: string, methods: Method | Method[], handler: Handler,
    patterns: Record<string, string> = {}): void {
    const params: string[] = []
    const indexed = template.replace(/\{(\w+)\}/g, (_, p: string) => `{${params.push(p) - 1}}`)
    if (!this.#names.has(name)) this.#names.set(name, [indexed, ...params])
    const path = template.replace(/\{(\w+)\}/g, (_, p: string) =>
      `:${p}{${patterns[p] ?? PARAM_PATTERNS[p] ?? '[^/]+'}}`)
    // Credentials are judged only once a route matched: an unknown URL is a 404 even with a
    // wrong password (reference §1.3).
    const numeric = params.filter((p) => !patterns[p] && PARAM_PATTERNS[p])
    const guarded: Handler = (c) => {
      // An id past 2^53 names no row: SQLite would wrap it onto another one (2^64 is 0, the root).
      for (const p of numeric) if (!isSafeIdText(c.req.param(p) ?? '')) throw pageNotFound()
      const authError = c.get('authError')
      if (authError) throw authError
      return handler(c)
    }
    for (const m of Array.isArray(methods) ? methods : [methods]) this.app.on(m, path, guarded)
  }

  /** `{name: [template, param...]}`, the body of `pyramid.route`. */
  toJSON(): Record<string, string[]> {
    return Object.fromEntries(this.#names)
  }
}
