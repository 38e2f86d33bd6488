/**
 * @module postgres/port
 * The PostgreSQL implementation of the data port (issue 23; docs/team-server.md): several Node
 * processes on one database. Every process keeps only caches, told of the others' commits by
 * the change counters (tokens.ts, read once per request); units of work run one at a time
 * across processes under the main advisory lock (uow.ts); blobs live in the database (blobs.ts),
 * or in the store the host gives (an S3 bucket: host/node-s3-blobs.ts).
 * The schema is created and migrated at start (migrate.ts).
 */
import pg from 'pg'
import type { AsyncContext } from '../platform/platform.ts'
import type { BlobStore, DataPort } from '../port/port.ts'
import type { Frames } from '../port/frames.ts'
import { answerLostAs503, connOf, inTransaction, poolConfig, reasonOf } from './conn.ts'
import { PgUnits } from './uow.ts'
import { CLOCK, PgTokens } from './tokens.ts'
import { pgBlobs } from './blobs.ts'
import { migratePg } from './migrate.ts'
import { aclTokenOnce, pgMainRead, pgMainWrite } from './tx.ts'
import { PgFeatureTables } from './features/tables.ts'
import { pgCatalogue } from './catalogue.ts'
import { exclusive } from './exclusive.ts'
import { ApiError, operationalError } from '../core/error.ts'

export { reasonOf }

export interface PostgresPortOptions {
  /** Connections this process keeps at most (default 10). */
  maxConnections?: number
  /** The platform's async-local storage, for the nested-unit-of-work guard. */
  asyncContext?: <T>() => AsyncContext<T>
  /** Where blobs live when not in the database (`--blobs s3://…`): every process must be given the same. */
  blobs?: BlobStore
}

export interface PostgresPort extends DataPort {
  readonly tokens: PgTokens
  /** The connection pool: for tests that look at rows directly. */
  readonly pool: pg.Pool
}

/** The port over the database at `url` (`postgres://user:pass@host:port/db`), its schema migrated. */
export async function openPostgresData(url: string, opts: PostgresPortOptions = {}): Promise<PostgresPort> {
  // Timeouts, keepalive, idle connections never keeping the process alive (conn.ts); a lost database a 503.
  const pool = answerLostAs503(new pg.Pool(poolConfig(url, opts.maxConnections ?? 10)))
  // An idle connection that breaks (a restarted server) is dropped by the pool; without this
  // handler its error would end the process.
  pool.on('error', () => undefined)
  try {
    await inTransaction(pool, (client) => migratePg(connOf(client)))
  } catch (err) {
    await pool.end().catch(() => undefined)
    throw err
  }
  const frames = opts.asyncContext?.() as Frames | undefined
  const units = new PgUnits(pool, 'main', frames)
  // Named: each connection parses and plans it once, not on every request.
  const tokens = new PgTokens(async (after) => (await unavailable(pool.query<{ scope: string; n: number }>({ name: 'outpost_change',
    text: `SELECT scope, n FROM outpost_change WHERE n > $1 AND scope <> '${CLOCK}'`, values: [after] }))).rows)
  await tokens.refresh()
  const aclToken = aclTokenOnce(tokens)
  const blobs = opts.blobs ?? pgBlobs(pool)
  // Its tables are made with the rest (schema/catalogue.ts): nothing to open on first use.
  const catalogue = pgCatalogue(pool, tokens, frames)
  return {
    pool,
    tokens,
    unitOfWork: (fn) => units.write(pgMainWrite, fn, (conn) => tokens.move(conn, ['main'])),
    read: (fn) => units.read((db, live) => pgMainRead(db, live, aclToken), fn),
    blobs,
    features: new PgFeatureTables(pool, tokens, blobs, frames),
    catalogue: async () => catalogue,
    ping: async () => { await unavailable(pool.query('SELECT 1')) },
    exclusive: (key) => exclusive(pool, key),
    close: () => pool.end(),
  }
}

/**
 * A database that cannot answer (down, restarting, unreachable) is a 503 with the JSON error
 * body, not a 500: the request changed nothing and may be tried again (the health check, the
 * change counters read before every request).
 */
function unavailable<T>(q: Promise<T>): Promise<T> {
  return q.catch((err: unknown) => {
    if (err instanceof ApiError) throw err
    throw operationalError(`The database does not answer: ${reasonOf(err)}`, err)
  })
}
