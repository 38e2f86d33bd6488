/**
 * @module postgres/features/transactions
 * Stored transactions of a layer on PostGIS (reference §12), as SQLite's
 * (sqlite/features/transactions.ts): operations kept by sequence number until the commit, the
 * commit's errors beside them, its results after it, in the layer's own tables, so a commit
 * applies its operations and records itself in one transaction. Lists travel as arrays
 * (`unnest`): a PUT of any size is a fixed number of statements.
 */
import type { TransactionOp, TransactionRecord } from '../../feature/history-types.ts'
import type { PgConn } from '../conn.ts'
import type { HistoryTables } from './history-schema.ts'
import { planPut } from '../../feature/transaction/put-ops.ts'

type Row = { id: number; user_id: number; epoch: number | null; started: string; committed: string | null }
const asRecord = (r: Row): TransactionRecord => ({ id: r.id, userId: r.user_id, epoch: r.epoch, started: r.started, committed: r.committed })
const COLUMNS = 'id, user_id, epoch, started, committed'

export async function getTransaction(db: PgConn, t: HistoryTables, tid: number): Promise<TransactionRecord | undefined> {
  const r = await db.row<Row>(`SELECT ${COLUMNS} FROM ${t.transaction} WHERE id = $1`, [tid])
  return r && asRecord(r)
}

export async function transactionOps(db: PgConn, t: HistoryTables, tid: number): Promise<TransactionOp[]> {
  return db.rows<TransactionOp>(`SELECT seqnum, payload, error FROM ${t.transactionOp} WHERE tid = $1 ORDER BY seqnum`, [tid])
}

export async function transactionResults(db: PgConn, t: HistoryTables, tid: number): Promise<[number, string][]> {
  return (await db.rows<{ seqnum: number; value: string }>(`SELECT seqnum, value FROM ${t.transactionResult} WHERE tid = $1
    ORDER BY seqnum`, [tid])).map((r) => [r.seqnum, r.value])
}

export async function startTransaction(db: PgConn, t: HistoryTables, userId: number, epoch: number | null, started: string): Promise<TransactionRecord> {
  return asRecord((await db.row<Row>(`INSERT INTO ${t.transaction} (user_id, epoch, started) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
    [userId, epoch, started]))!)
}

/**
 * Stores operations in order (a `null` payload removes one), as feature/transaction/put-ops.ts
 * plans them: a clash's seqnum is returned and nothing is stored.
 */
export async function putTransactionOps(db: PgConn, t: HistoryTables, tid: number,
  items: { seqnum: number; payload: string | null }[]): Promise<number | undefined> {
  const stored = new Map<number, { payload: string; error: unknown }>()
  for (const r of await db.rows<{ seqnum: number; payload: string; error: string | null }>(`SELECT seqnum, payload, error
    FROM ${t.transactionOp} WHERE tid = $1 AND seqnum = ANY($2::bigint[])`, [tid, items.map((i) => i.seqnum)])) {
    stored.set(r.seqnum, { payload: r.payload, error: r.error })
  }
  const plan = planPut(stored, items)
  if ('clash' in plan) return plan.clash
  const { removed, put } = plan
  if (removed.length) await db.exec(`DELETE FROM ${t.transactionOp} WHERE tid = $1 AND seqnum = ANY($2::bigint[])`, [tid, removed])
  if (put.length) {
    await db.exec(`INSERT INTO ${t.transactionOp} (tid, seqnum, payload, error) SELECT $1::bigint, s, p, NULL FROM unnest($2::bigint[], $3::text[]) AS u(s, p)
      ON CONFLICT (tid, seqnum) DO UPDATE SET payload = excluded.payload, error = NULL`, [tid, put.map(([s]) => s), put.map(([, p]) => p)])
  }
  return undefined
}

export async function setTransactionErrors(db: PgConn, t: HistoryTables, tid: number, errors: [number, string][]): Promise<void> {
  if (!errors.length) return
  await db.exec(`UPDATE ${t.transactionOp} o SET error = e.err FROM unnest($2::bigint[], $3::text[]) AS e(seqnum, err)
    WHERE o.tid = $1 AND o.seqnum = e.seqnum`, [tid, errors.map(([s]) => s), errors.map(([, e]) => e)])
}

export async function commitTransaction(db: PgConn, t: HistoryTables, tid: number, committed: string, results: [number, string][]): Promise<void> {
  if (results.length) {
    await db.exec(`INSERT INTO ${t.transactionResult} (tid, seqnum, value) SELECT $1::bigint, s, v FROM unnest($2::bigint[], $3::text[]) AS u(s, v)`,
      [tid, results.map(([s]) => s), results.map(([, v]) => v)])
  }
  // The operations are done with; the results answer any later read.
  await db.exec(`DELETE FROM ${t.transactionOp} WHERE tid = $1`, [tid])
  await db.exec(`UPDATE ${t.transaction} SET committed = $1 WHERE id = $2`, [committed, tid])
}

export async function disposeTransaction(db: PgConn, t: HistoryTables, tid: number): Promise<void> {
  await db.exec(`WITH o AS (DELETE FROM ${t.transactionOp} WHERE tid = $1), r AS (DELETE FROM ${t.transactionResult} WHERE tid = $1)
    DELETE FROM ${t.transaction} WHERE id = $1`, [tid])
}
