/**
 * @module postgres/conn
 * What a repository of the PostgreSQL implementation gets: one connection inside its unit of
 * work's transaction, with the few ways it asks things. Counts and ids (`int8`) come back as
 * numbers (they stay far below 2^53), `numeric` too; nothing else is converted.
 */
import pg from 'pg'
import { ApiError, operationalError, validationError } from '../core/error.ts'

export interface PgConn {
  /** The rows of one statement (`$1`… bound to `params`). */
  rows<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]>
  /** Its first row, if any. */
  row<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T | undefined>
  /** The first column of its first row, if any. */
  value<T = unknown>(text: string, params?: readonly unknown[]): Promise<T | undefined>
  /** Runs it; returns how many rows it touched. */
  exec(text: string, params?: readonly unknown[]): Promise<number>
}

const INT8 = 20
const NUMERIC = 1700

/** The type parsers of every connection of ours: int8 and numeric as numbers. */
export const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => Number(v)
    return pg.types.getTypeParser(oid, format as 'text')
  }) as pg.CustomTypesConfig['getTypeParser'],
}

/**
 * PostgreSQL refuses text with a NUL character (U+0000), which SQLite stores: a client's value
 * (a field, a name, a description, a filter or search pattern), so a 422, never a 500 (the
 * statement, and with it the unit of work, is rolled back).
 */
function refusedText(err: unknown): never {
  const code = (err as { code?: string }).code
  if (code === '22021' || code === '22P05') throw validationError('Text must not contain the NUL character (U+0000).')
  // A number beyond BIGINT (ids are BIGINT, as SQLite's 64-bit integers): SQLite compares it as a
  // REAL and finds nothing (a 404); PostgreSQL refuses it, so here it is the client's number, a 422.
  if (code === '22003') throw validationError('A number is out of range (beyond ±2^63).')
  throw err
}

/**
 * An integer beyond ±2^53 written out in digits: pg would send `1e+29`, which no integer column
 * parses (a 500), where digits give the range error above (a 422) and a float column its value.
 */
const unsafe = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)
const inexact = (v: unknown): boolean => unsafe(v) || (Array.isArray(v) && v.some(inexact))
const digits = (v: unknown): unknown => (unsafe(v) ? BigInt(v as number).toString() : Array.isArray(v) ? v.map(digits) : v)
/** The values as sent: copied only when one needs its digits (a batch's arrays are long; most never do). */
const exact = (params?: readonly unknown[]): unknown[] | undefined => (params?.some(inexact) ? params.map(digits) : params as unknown[] | undefined)

/**
 * How long a new connection may take, handshake included, unless the URL says otherwise
 * (`?connect_timeout=<s>`, libpq's parameter): a database address that drops packets fails the
 * start, or a request (503), after this instead of the operating system's TCP timeout (minutes).
 * It also bounds a request's wait for one of the pool's connections when all are busy.
 */
export const CONNECT_TIMEOUT_MS = 10_000

/**
 * How long a transaction may sit idle on the server before the server ends its session: a
 * process that hangs (not dies: its socket would close) inside a unit of work would otherwise hold
 * the main advisory lock, and every process's writes would wait for it forever. A unit of work
 * awaits nothing but its statements (port.ts), so a minute idle is a hung process. No
 * `statement_timeout`: a legitimate ingest or export statement may run for minutes.
 */
export const IDLE_IN_TRANSACTION_MS = 60_000

/** The pool's settings for `url`: timeouts above, TCP keepalive, and a name per process in `pg_stat_activity`. */
export function poolConfig(url: string, max: number): pg.PoolConfig {
  const seconds = Number(new URL(url).searchParams.get('connect_timeout'))
  return {
    connectionString: url, max, types: pgTypes,
    connectionTimeoutMillis: seconds > 0 ? seconds * 1000 : CONNECT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    // A server that vanished is noticed on idle connections too (the pool then drops them).
    keepAlive: true,
    // Which process a session is (an operator's pg_stat_activity, the tests' kill mid-transaction); the URL's wins.
    application_name: `outpost ${globalThis.process?.pid ?? ''}`.trim(),
    // Idle connections do not keep the process alive once the server has closed.
    allowExitOnIdle: true,
  }
}

/**
 * SQLSTATEs and socket errors that mean the database is gone or going (not that a statement was
 * wrong): connection exceptions (class 08), a server shutting down or starting (57P01-57P03),
 * too many connections, the database dropped or our login refused (a new connection's), and the
 * sockets' own failures.
 */
const LOST_CODES = new Set(['57P01', '57P02', '57P03', '53300', '3D000', '28000', '28P01', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT',
  'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENOENT'])
const LOST_MESSAGES = /^(Connection terminated|timeout expired$|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/

/** Whether `err` says the database cannot be reached or dropped the connection. */
export function lostDatabase(err: unknown): boolean {
  const e = err as { code?: string; message?: string; errors?: unknown[] } | undefined
  if (!e || err instanceof ApiError) return false
  if (e.code && (e.code.startsWith('08') || LOST_CODES.has(e.code))) return true
  if (e.message && LOST_MESSAGES.test(e.message)) return true
  return !!e.errors?.length && e.errors.every(lostDatabase)
}

/** One line saying why a connection or statement failed (a refused connection to every address of a name is an AggregateError without a message). */
export function reasonOf(err: unknown): string {
  const e = err as { message?: string; code?: string; errors?: unknown[] }
  if (err instanceof ApiError && err.cause) return reasonOf(err.cause)
  // pg-pool's and pg's own timers race to say it: one meaning, one line.
  if (e?.message === 'Connection terminated due to connection timeout' || e?.message === 'timeout expired') return 'no answer within the connect timeout'
  if (e?.message === 'timeout exceeded when trying to connect') return 'every connection of this process stayed busy for the connect timeout'
  if (e?.message) return e.message.split('\n')[0]!
  if (e?.errors?.length) return reasonOf(e.errors[0])
  return e?.code ?? String(err)
}

/** A lost database as the client sees it: 503 with the JSON error body, the request may be tried again. Anything else as it was. */
export const unavailableOr = (err: unknown): unknown =>
  lostDatabase(err) ? operationalError(`The database does not answer: ${reasonOf(err)}`, err) : err

/**
 * The pool's connections answer a lost database with `unavailableOr`'s 503, whichever module
 * queries (units of work, feature tables, blobs, the change counters): its `connect` and each
 * new client's `query` are wrapped once here, rather than every caller catching (a missed one
 * would be a 500). Promise and callback forms both, since the pool's own `query` uses callbacks.
 */
export function answerLostAs503(pool: pg.Pool): pg.Pool {
  type Cb = (err: unknown, ...rest: unknown[]) => void
  const wrapCb = (cb: Cb): Cb => (err, ...rest) => cb(err ? unavailableOr(err) : err, ...rest)
  const connect = pool.connect.bind(pool) as (cb?: Cb) => Promise<pg.PoolClient> | undefined
  pool.connect = ((cb?: Cb) => (cb ? connect(wrapCb(cb)) : connect()!.catch((err: unknown) => { throw unavailableOr(err) }))) as typeof pool.connect
  pool.on('connect', (client) => {
    // A connection that ends while checked out (a unit of work's, the sync guard's) emits 'error'
    // besides failing its query; pg-pool listens only while a client is idle, and an 'error'
    // nobody hears ends the process. Its queries say it (a 503), and the pool drops it when it
    // comes back (no longer queryable).
    client.on('error', () => undefined)
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    client.query = ((...args: unknown[]) => {
      const last = args.length - 1
      if (typeof args[last] === 'function') args[last] = wrapCb(args[last] as Cb)
      const out = query(...args)
      return out instanceof Promise ? out.catch((err: unknown) => { throw unavailableOr(err) }) : out
    }) as typeof client.query
  })
  return pool
}

/**
 * Names of the statements this process sends again and again, by text: a named statement is
 * parsed once per connection and, after PostgreSQL's first five runs, planned once (a generic
 * plan, when its cost is no worse than the custom ones'), where an unnamed one is parsed and
 * planned on every run. A read of the mix (a resource, a page of features) is 3–6 such
 * statements. Only a text seen `NAME_AFTER` times gets a name (one-off texts, such as a batch's
 * INSERT over its own field set, do not fill the server's memory), and at most `MAX_NAMES`
 * texts do: each connection keeps up to that many prepared statements.
 */
const NAMES = new Map<string, string>()
const SEEN = new Map<string, number>()
const NAME_AFTER = 3
const MAX_NAMES = 300
let named = 0

function nameOf(text: string): string | undefined {
  const name = NAMES.get(text)
  if (name || NAMES.size >= MAX_NAMES) return name
  const n = (SEEN.get(text) ?? 0) + 1
  if (n < NAME_AFTER) {
    // Bounded: texts seen rarely are forgotten now and then.
    if (SEEN.size >= 20 * MAX_NAMES) SEEN.clear()
    SEEN.set(text, n)
    return undefined
  }
  SEEN.delete(text)
  NAMES.set(text, `outpost_s${++named}`)
  return NAMES.get(text)
}

/**
 * A prepared statement whose result columns changed type under it (PostgreSQL: "cached plan
 * must not change result type"; a table dropped and made again with a column of the same name
 * and another type, which only a `migrate --replace` under a running host does) fails once: its
 * text gets a new name, prepared anew on its next run.
 */
function renamedAfter(text: string, err: unknown): never {
  if ((err as { code?: string }).code === '0A000' && NAMES.has(text)) NAMES.set(text, `outpost_s${++named}`)
  throw err
}

/**
 * `prepared`: the statements sent often are named (`nameOf`). Only for our own schema: a team's
 * database (external/) changes its tables under us, where a prepared statement would fail.
 */
export function connOf(client: pg.ClientBase, prepared = false): PgConn {
  const config = (text: string, params: readonly unknown[] | undefined, rowMode?: 'array') => {
    // Only statements with values go by the extended protocol, where a name is possible (and a text is one statement).
    const name = prepared && params?.length ? nameOf(text) : undefined
    return { text, values: exact(params), rowMode, ...(name ? { name } : {}) }
  }
  const q = (text: string, params?: readonly unknown[], rowMode?: 'array') =>
    client.query(config(text, params, rowMode)).catch((err: unknown) => renamedAfter(text, err)).catch(refusedText)
  return {
    rows: async <T>(text: string, params?: readonly unknown[]) => (await q(text, params)).rows as T[],
    row: async <T>(text: string, params?: readonly unknown[]) => (await q(text, params)).rows[0] as T | undefined,
    value: async <T>(text: string, params?: readonly unknown[]) => {
      const r = await q(text, params, 'array')
      return (r.rows[0] as unknown[] | undefined)?.[0] as T | undefined
    },
    exec: async (text, params) => (await q(text, params)).rowCount ?? 0,
  }
}

/** `fn` in one transaction on a connection of `pool`: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    const out = await fn(client)
    await client.query('COMMIT')
    return out
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw err
  } finally {
    client.release()
  }
}
