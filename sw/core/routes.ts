/**
 * @module core/routes
 * Route registration by the original's route names. Templates are written as the original
 * writes them (`/api/resource/{id}/feature/{fid}`); this module turns them into router paths
 * and keeps the table that `GET /api/component/pyramid/route` serves (reference §1.4).
 *
 * Handlers see a `RequestContext<V>`: the request and the per-request values `V` that the
 * component declares it reads (its own context). The app's router context has them all, so
 * one table serves every component while none of them knows the app.
 */
import type { Context, Env, HonoRequest } from 'hono'
import { pageNotFound } from './error.ts'
import { isSafeIdText } from './limits.ts'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS'

/** What a handler reads: the request and the per-request values of its component's context. */
export interface RequestContext<V> {
  readonly req: HonoRequest
  get<K extends keyof V>(key: K): V[K]
}

/**
 * Answers a request; `undefined` passes it to the next handler of the same path (a route the
 * original overloads per resource class, such as `resource.export`, is served by several
 * components, each for the classes it knows).
 */
export type Handler<V> = (c: RequestContext<V>) => Response | undefined | Promise<Response | undefined>

/** The registration side of the route table, as a component sees it. */
export interface Routes<V> {
  /**
   * Registers `handler` for `methods` on the template, under the original's route `name`.
   * `patterns` overrides the path pattern of named params (an upload's `{id}` is hex, not numeric).
   */
  add(name: string, template: string, methods: Method | Method[], handler: Handler<V>, patterns?: Record<string, string>): void
}

/** Numeric path segments as the original's `uint` matcher accepts them. */
const PARAM_PATTERNS: Record<string, string> = {
  id: '[0-9]+', fid: '[0-9]+', aid: '[0-9]+', vid: '[0-9]+', tid: '[0-9]+',
  z: '[0-9]+', x: '[0-9]+', y: '[0-9]+',
}

interface Router<E extends Env> {
  on(method: string, path: string, handler: (c: Context<E>, next: () => Promise<void>) => Response | Promise<Response | void>): unknown
}

export class RouteTable<E extends Env & { Variables: object }> implements Routes<E['Variables']> {
  #names = new Map<string, string[]>()
  #app: Router<E>
  #guard: (c: RequestContext<E['Variables']>) => void

  /** `guard` runs once a route matched, before its handler (credentials are judged there). */
  constructor(app: Router<E>, guard: (c: RequestContext<E['Variables']>) => void = () => {}) {
    this.#app = app
    this.#guard = guard
  }

  add(name: string, template: string, methods: Method | Method[], handler: Handler<E['Variables']>,
    patterns: Record<string, string> = {}): void {
    const params: string[] = []
    const indexed = template.replace(/\{(\w+)\}/g, (_, p: string) => `{${params.push(p) - 1}}`)
    if (!this.#names.has(name)) this.#names.set(name, [indexed, ...params])
    const path = template.replace(/\{(\w+)\}/g, (_, p: string) =>
      `:${p}{${patterns[p] ?? PARAM_PATTERNS[p] ?? '[^/]+'}}`)
    const numeric = params.filter((p) => !patterns[p] && PARAM_PATTERNS[p])
    const guarded = async (c: Context<E>, next: () => Promise<void>): Promise<Response | void> => {
      // An id past 2^53 names no row: SQLite would wrap it onto another one (2^64 is 0, the root).
      for (const p of numeric) if (!isSafeIdText(c.req.param(p) ?? '')) throw pageNotFound()
      this.#guard(c)
      const res = await handler(c)
      if (res) return res
      await next()
    }
    for (const m of Array.isArray(methods) ? methods : [methods]) this.#app.on(m, path, guarded)
  }

  /** `{name: [template, param...]}`, the body of `pyramid.route`. */
  toJSON(): Record<string, string[]> {
    return Object.fromEntries(this.#names)
  }
}

/** What a middleware reads and sets (the request's user, for instance). */
export interface MiddlewareContext<V> extends RequestContext<V> {
  set<K extends keyof V>(key: K, value: V[K]): void
}
