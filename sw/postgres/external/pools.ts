/**
 * @module postgres/external/pools
 * One `pg.Pool` per `spatialdb_connection` resource (a team's own PostGIS database, issue 24),
 * made on first use and made again when the connection's parameters change (the key is the
 * parameters themselves, so an edited connection never reuses the old pool). Few connections
 * per pool, idle ones closed, and the original's timeouts (reference ngw-services §4.1: a
 * connect timeout and `statement_timeout`, 15 s each). And the one translation of what the
 * driver throws into what a client reads: a clear reason for a failed connect (refused, bad
 * credentials, missing database, timeout), the SQLSTATE for a failed statement.
 */
import { isIP, Socket, type LookupFunction } from 'node:net'
import pg from 'pg'
import { ApiError, externalDatabaseError, forbidden, validationError } from '../../core/error.ts'
import type { SpatialDbParams, SpatialDbSource } from '../../port/spatialdb.ts'

export interface PoolOptions {
  /** How long a connect may take (the original's `postgis.connect_timeout`). @default 15000 */
  connectTimeoutMs: number
  /** Sent as the session's `statement_timeout` (the original's `postgis.statement_timeout`). @default 15000 */
  statementTimeoutMs: number
  /** Connections per connection resource. @default 4 */
  maxConnections: number
  /** An idle connection is closed after this long. @default 30000 */
  idleMs: number
  /** Where connections may go; absent: anywhere (a host reachable from this machine only). */
  guard?: OutboundGuard
}

/**
 * The Node host's outbound rule when it listens beyond loopback (sw/host/node-outbound.ts,
 * `--allow-remote`): a connection resource must not make the server reach the services of its
 * own network. The check is made on the address the socket really connects to.
 */
export interface OutboundGuard {
  /** Why `address` may not be reached; `undefined` when it may. */
  refusal(address: string): string | undefined
  /** `net.connect`'s lookup answering only addresses that may be reached; a refusal is an error with the `reason`. */
  lookup: LookupFunction
}

/** The 403 of a refused target, naming the rule and how an administrator lifts it. */
const refused = (target: string, reason: string) => forbidden(`Connections to ${target} are not allowed from this server (${reason}); `
  + 'an administrator of the machine may allow the range with --allow-remote.')

/**
 * A socket that connects only where `guard` allows: a literal address is checked before, a host
 * name resolved once by the guard's lookup and the socket connected to the address it checked
 * (no second resolution to race against). A Unix socket is this machine: judged as 127.0.0.1.
 */
class GuardedSocket extends Socket {
  constructor(readonly guard: OutboundGuard) {
    super()
  }

  // reason: pg calls connect(port, host) or connect(path) (a Unix socket); Socket's overloads cover neither pair exactly
  override connect(...args: any[]): this {
    const [port, host] = args as [number | string, string | undefined]
    const refuse = (target: string, reason: string) => {
      process.nextTick(() => this.destroy(refused(target, reason)))
      return this
    }
    if (typeof port !== 'number') {
      const why = this.guard.refusal('127.0.0.1')
      return why ? refuse(`the Unix socket ${port}`, `a socket is this machine, and ${why}`) : super.connect(port)
    }
    if (host && isIP(host)) {
      const why = this.guard.refusal(host)
      if (why) return refuse(host, why)
    }
    const lookup: LookupFunction = (hostname, options, callback) => this.guard.lookup(hostname, options, (err, address, family) => {
      const reason = (err as { reason?: unknown } | null)?.reason
      callback(typeof reason === 'string' ? refused(hostname, reason) as unknown as NodeJS.ErrnoException : err, address, family)
    })
    return super.connect({ port, host: host ?? 'localhost', lookup })
  }
}

export const POOL_DEFAULTS: PoolOptions = { connectTimeoutMs: 15_000, statementTimeoutMs: 15_000, maxConnections: 4, idleMs: 30_000 }

/** libpq's `sslmode` as the pg driver takes it (the driver has no fallback, so `allow`/`prefer` connect without TLS). */
function sslOf(mode: string | null): pg.ClientConfig['ssl'] {
  switch (mode) {
    case 'require': return { rejectUnauthorized: false }
    // verify-ca checks the chain but not the host name.
    case 'verify-ca': return { rejectUnauthorized: true, checkServerIdentity: () => undefined }
    case 'verify-full': return { rejectUnauthorized: true }
    default: return false
  }
}

/** The driver's settings for `params` (also the diagnostics' one-off client). */
export function clientConfig(params: SpatialDbParams, opts: Pick<PoolOptions, 'connectTimeoutMs' | 'statementTimeoutMs' | 'guard'>): pg.ClientConfig {
  const guard = opts.guard
  return {
    ...(guard ? { stream: () => new GuardedSocket(guard) } : {}),
    host: params.hostname, port: params.port ?? 5432, database: params.database, user: params.username,
    password: params.password, ssl: sslOf(params.sslmode), application_name: 'outpost',
    connectionTimeoutMillis: opts.connectTimeoutMs, statement_timeout: opts.statementTimeoutMs,
  }
}

export class Pools {
  #pools = new Map<number, { key: string; pool: pg.Pool }>()

  constructor(readonly opts: PoolOptions) {}

  /** The pool of connection `src`, made again when its parameters changed since. */
  get(src: SpatialDbSource): pg.Pool {
    const key = JSON.stringify(src.params)
    const hit = this.#pools.get(src.id)
    if (hit?.key === key) return hit.pool
    if (hit) void hit.pool.end().catch(() => undefined)
    const pool = new pg.Pool({ ...clientConfig(src.params, this.opts), max: this.opts.maxConnections,
      idleTimeoutMillis: this.opts.idleMs })
    // An idle connection the server drops (a restart) is an 'error' event: unheard, it would end the process.
    pool.on('error', () => undefined)
    this.#pools.set(src.id, { key, pool })
    return pool
  }

  async forget(id: number): Promise<void> {
    const hit = this.#pools.get(id)
    this.#pools.delete(id)
    await hit?.pool.end().catch(() => undefined)
  }

  async close(): Promise<void> {
    const all = [...this.#pools.values()]
    this.#pools.clear()
    await Promise.all(all.map((p) => p.pool.end().catch(() => undefined)))
  }
}

type DriverError = Error & { code?: string; errors?: unknown[] }

const CONNECT_CODES: Record<string, (p: SpatialDbParams, e: DriverError) => string> = {
  '28P01': (p) => `The database refused the password of user '${p.username}'.`,
  '28000': (p, e) => `The database refused user '${p.username}': ${e.message}`,
  '3D000': (p) => `Database '${p.database}' does not exist on ${where(p)}.`,
}

const where = (p: SpatialDbParams) => `${p.hostname}:${p.port ?? 5432}`

/**
 * Why connecting with `params` failed, in one sentence; `undefined` when `err` is not a
 * failure to connect (a statement failed). Never repeats the password.
 */
export function connectReason(err: unknown, params: SpatialDbParams, timeoutMs: number): string | undefined {
  if (err instanceof ApiError) return undefined
  let e = err as DriverError
  // A name with several addresses, all refused: an AggregateError of each attempt's.
  if (!e?.code && e?.errors?.length) e = e.errors[0] as DriverError
  const code = e?.code
  const explain = code === undefined ? undefined : CONNECT_CODES[code]
  if (explain) return explain(params, e)
  // Any other answer of the server is a statement's error (its SQLSTATE says which).
  if (e instanceof pg.DatabaseError) return undefined
  if (code === 'ECONNREFUSED') return `The database server at ${where(params)} refused the connection: is PostgreSQL running and listening there?`
  if (code === 'ENOENT' && params.hostname.startsWith('/')) return `There is no PostgreSQL socket in ${params.hostname} for port ${params.port ?? 5432}.`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `The host name '${params.hostname}' is not known.`
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `The host ${params.hostname} cannot be reached.`
  if (code === 'ECONNRESET' || code === 'EPIPE') return `The database server at ${where(params)} closed the connection.`
  const text = e?.message ?? ''
  if (/timeout|timed out/i.test(text) && !code) return `The database server at ${where(params)} did not answer within ${timeoutMs / 1000} s.`
  if (/SSL|TLS|certificate/i.test(text) || /CERT|TLS|SSL/.test(code ?? '')) return `TLS with the database server at ${where(params)} failed: ${text}`
  if (/terminated unexpectedly|Connection terminated/i.test(text) && !code) return `The database server at ${where(params)} closed the connection.`
  return undefined
}

/** SQLSTATE of the statement that hit `statement_timeout`. */
const QUERY_CANCELED = '57014'

/**
 * The answer for a driver error while serving a request: 503 External database error, with
 * the connect reason or the SQLSTATE in `detail` (reference §4.1). An ApiError passes as it is.
 */
export function externalError(err: unknown, params: SpatialDbParams, opts: Pick<PoolOptions, 'connectTimeoutMs' | 'statementTimeoutMs'>): ApiError {
  if (err instanceof ApiError) return err
  const reason = connectReason(err, params, opts.connectTimeoutMs)
  if (reason) return externalDatabaseError(reason, err)
  const e = err as DriverError
  if (e?.code === QUERY_CANCELED) {
    return externalDatabaseError(`PostgreSQL error code: ${QUERY_CANCELED}. The query ran longer than the statement timeout (${opts.statementTimeoutMs / 1000} s).`, err)
  }
  return externalDatabaseError(e?.code ? `PostgreSQL error code: ${e.code}. ${e.message}` : `${e?.message ?? String(err)}`, err)
}

/** The answer for a failed connect while a resource is created or changed: 422, as the original's "Cannot connect to the database!". */
export function connectRefusal(err: unknown, params: SpatialDbParams, opts: Pick<PoolOptions, 'connectTimeoutMs' | 'statementTimeoutMs'>): ApiError {
  if (err instanceof ApiError) return err
  const reason = connectReason(err, params, opts.connectTimeoutMs)
  return reason ? validationError(`Cannot connect to the database! ${reason}`) : externalError(err, params, opts)
}

/** Whether `err` is the server's answer to a statement (a SQLSTATE), after which the connection is still good. */
export const isSqlError = (err: unknown) => err instanceof pg.DatabaseError

/** A connection of `pool` for `fn`, released after; driver errors become `onError`'s answer. */
export async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, onError: (err: unknown) => ApiError): Promise<T> {
  let client: pg.PoolClient
  try {
    client = await pool.connect()
  } catch (err) {
    throw onError(err)
  }
  let broken = false
  try {
    return await fn(client)
  } catch (err) {
    // A connection that failed other than by a statement's error is not given back to the pool.
    broken = !(err instanceof ApiError) && !isSqlError(err)
    throw onError(err)
  } finally {
    client.release(broken)
  }
}
