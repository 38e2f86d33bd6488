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
import { matchedRoutes } from 'hono/route'
import { pageNotFound } from './error.ts'
import { isSafeIdText } from './limits.ts'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS'

/** What a handler reads: the request and the per-request values of its component's context. */
export interface RequestContext<V> {
  readonly req: HonoRequest
  get<K extends keyof V>(key: K): V[K]
}

/** Moments of a request before its handler (`performance.now()`), for `Server-Timing`'s phases. */
export interface RequestMarks {
  /** The change tokens read (other processes' commits seen: one statement on PostgreSQL). */
  refreshed: number
  /** The request's credentials judged. */
  authenticated: number
}

/**
 * Answers a request; `undefined` passes it to the next handler of the same path (a route the
 * original overloads per resource class, such as `resource.export`, is served by several
 * components, each for the classes it knows).
 */
export type Handler<V> = (c: RequestContext<V>) => Response | undefined | Promise<Response | undefined>

/**
 * What a route needs before its handler runs, declared where it is registered (docs/security.md).
 * The route table checks it through one evaluator; a route that declares nothing does not start.
 * - `public`: anyone, the guest included; the text says why.
 * - `user`: a signed-in user, or a member of `administrators` (user-level rights, reference §5.1).
 * - a resource permission on the resources the request names: `path` (its `{id}`), `query` (the
 *   `resource=` list that tiles, images and legends take), or `handler` for resources only the
 *   body or the stored data names (the parent of a new resource, the layers of an identify): the
 *   handler checks them through the same evaluator, and `why` says where they come from.
 */
export type Need =
  | { public: string }
  | { user: 'authenticated' | 'administrator' }
  | { scope: string; permission: string; from: 'path' | 'query' }
  | { scope: string; permission: string; from: 'handler'; why: string }

/** One need for every method, or one per method. */
export type Needs = Need | Partial<Record<Method, Need>>

/** A route's declaration as `outpost.route_needs` lists it (the route-table sweep reads it). */
export interface Declared { name: string; template: string; method: Method; need: Need }

const methodsOf = (methods: Method | Method[]) => (Array.isArray(methods) ? methods : [methods])

const isNeed = (n: Needs): n is Need => 'public' in n || 'user' in n || 'scope' in n

/** How a route runs, beyond what it needs. */
export interface RouteOptions {
  /**
   * The handler reads the change tokens itself (through the request's `pendingRefresh`, in its
   * one statement or before its first cache), so the app does not read them before it: one round
   * trip less on PostgreSQL. The app answers the request anew when what its checks read from
   * caches turns out stale (port.ts `PendingRefresh`). For GET routes without side effects.
   */
  carriesRefresh?: boolean
}

/** The registration side of the route table, as a component sees it. */
export interface Routes<V> {
  /**
   * Registers `handler` for `methods` on the template, under the original's route `name`, once
   * `needs` is met. `patterns` overrides the path pattern of named params (an upload's `{id}` is hex).
   */
  add(name: string, template: string, methods: Method | Method[], needs: Needs, handler: Handler<V>,
    patterns?: Record<string, string>, options?: RouteOptions): void
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
  #guard: (c: RequestContext<E['Variables']>, need: Need) => void | Promise<void>
  #declared: Declared[] = []
  /** The handlers of routes that carry their refresh (`RouteOptions.carriesRefresh`). */
  #carriers = new WeakSet<object>()

  /**
   * `guard` runs once a route matched, before its handler, with the route's need for the
   * request's method: credentials are judged and permissions checked there.
   */
  constructor(app: Router<E>, guard: (c: RequestContext<E['Variables']>, need: Need) => void | Promise<void>) {
    this.#app = app
    this.#guard = guard
  }

  add(name: string, template: string, methods: Method | Method[], needs: Needs, handler: Handler<E['Variables']>,
    patterns: Record<string, string> = {}, options: RouteOptions = {}): void {
    if (options.carriesRefresh && methodsOf(methods).some((m) => m !== 'GET')) throw new Error(`Route ${name}: only GET routes may carry their refresh`)
    const list = Array.isArray(methods) ? methods : [methods]
    const needOf = {} as Record<string, Need>
    for (const m of list) {
      const need = isNeed(needs) ? needs : needs[m]
      // A route that does not say what it needs is a programming error: the app does not start.
      if (!need) throw new Error(`Route ${name} (${m} ${template}) declares no permission`)
      needOf[m] = need
    }
    for (const m of list) this.#declared.push({ name, template, method: m, need: needOf[m]! })
    // Hono answers HEAD with the GET handler.
    needOf.HEAD ??= needOf.GET!
    const params: string[] = []
    const indexed = template.replace(/\{(\w+)\}/g, (_, p: string) => `{${params.push(p) - 1}}`)
    if (!this.#names.has(name)) this.#names.set(name, [indexed, ...params])
    const path = template.replace(/\{(\w+)\}/g, (_, p: string) =>
      `:${p}{${patterns[p] ?? PARAM_PATTERNS[p] ?? '[^/]+'}}`)
    const numeric = params.filter((p) => !patterns[p] && PARAM_PATTERNS[p])
    const guarded = async (c: Context<E>, next: () => Promise<void>): Promise<Response | void> => {
      // An id past 2^53 names no row: SQLite would wrap it onto another one (2^64 is 0, the root).
      for (const p of numeric) if (!isSafeIdText(c.req.param(p) ?? '')) throw pageNotFound()
      await this.#guard(c, needOf[c.req.method]!)
      const res = await handler(c)
      if (res) return res
      await next()
    }
    if (options.carriesRefresh) this.#carriers.add(guarded)
    for (const m of list) this.#app.on(m, path, guarded)
  }

  /** Whether the route matched by `c` carries its refresh (`RouteOptions.carriesRefresh`); false when several match. */
  carriesRefresh(c: Context<E>): boolean {
    // The app's middleware is registered for every method ('ALL'); routes for theirs.
    const handlers = matchedRoutes(c).filter((r) => r.method !== 'ALL')
    return handlers.length === 1 && this.#carriers.has(handlers[0]!.handler)
  }

  /** Every route's declaration, per method. */
  declarations(): readonly Declared[] {
    return this.#declared
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

/** Open to anyone; `why` says why (it is listed with the route table's declarations). */
export const PUBLIC = (why: string): Need => ({ public: why })
export const ADMINISTRATOR: Need = { user: 'administrator' }
export const AUTHENTICATED: Need = { user: 'authenticated' }
/** `scope.permission` on the resource of the path's `{id}`. */
export const onPath = (scope: string, permission: string): Need => ({ scope, permission, from: 'path' })
/** `scope.permission` on every resource of the query's `resource=` list. */
export const onQuery = (scope: string, permission: string): Need => ({ scope, permission, from: 'query' })
/** `scope.permission` on resources only the body or stored data names, checked by the handler. */
export const inHandler = (scope: string, permission: string, why: string): Need => ({ scope, permission, from: 'handler', why })
