/**
 * @module sqlite/features/transactions
 * Stored transactions of a layer (reference §12): operations are kept by sequence number
 * until the commit, the commit's errors beside them, its results after it. They live in the
 * layer's database, so a commit applies its operations and records itself in one durable
 * write: a commit the client sends again, or a transaction it reads back after losing the
 * answer, finds it committed exactly once.
 */
import type { SqlDb } from '../../store/database.ts'
import type { TransactionOp, TransactionRecord } from '../../feature/history-types.ts'
import { planPut } from '../../feature/transaction/put-ops.ts'

const asRecord = (r: unknown[]): TransactionRecord => ({ id: Number(r[0]), userId: Number(r[1]),
  epoch: r[2] === null ? null : Number(r[2]), started: String(r[3]), committed: r[4] === null ? null : String(r[4]) })

export function getTransaction(db: SqlDb, tid: number): TransactionRecord | undefined {
  const r = db.selectArray(`SELECT id, user_id, epoch, started, committed FROM feature_transaction WHERE id = ?`, [tid])
  return r && asRecord(r)
}

export function transactionOps(db: SqlDb, tid: number): TransactionOp[] {
  return db.selectArrays(`SELECT seqnum, payload, error FROM feature_transaction_op WHERE tid = ? ORDER BY seqnum`, [tid])
    .map((r) => ({ seqnum: Number(r[0]), payload: String(r[1]), error: r[2] === null ? null : String(r[2]) }))
}

export function transactionResults(db: SqlDb, tid: number): [number, string][] {
  return db.selectArrays(`SELECT seqnum, value FROM feature_transaction_result WHERE tid = ? ORDER BY seqnum`, [tid])
    .map((r) => [Number(r[0]), String(r[1])])
}

export function startTransaction(db: SqlDb, userId: number, epoch: number | null, started: string): TransactionRecord {
  db.exec({ sql: `INSERT INTO feature_transaction (user_id, epoch, started) VALUES (?, ?, ?)`, bind: [userId, epoch, started] })
  return getTransaction(db, Number(db.selectValue('SELECT last_insert_rowid()')))!
}

/**
 * Stores operations in order (a `null` payload removes one), as feature/transaction/put-ops.ts
 * plans them: a clash's seqnum is returned and nothing is stored. Two statements for the whole
 * PUT, whatever its size.
 */
export function putTransactionOps(db: SqlDb, tid: number, items: { seqnum: number; payload: string | null }[]): number | undefined {
  const stored = new Map<number, { payload: string; error: unknown }>()
  for (const [seqnum, payload, error] of db.selectArrays(`SELECT seqnum, payload, error FROM feature_transaction_op
    WHERE tid = ? AND seqnum IN (SELECT value FROM json_each(?))`, [tid, JSON.stringify(items.map((i) => i.seqnum))])) {
    stored.set(Number(seqnum), { payload: String(payload), error })
  }
  const plan = planPut(stored, items)
  if ('clash' in plan) return plan.clash
  db.exec({ sql: `DELETE FROM feature_transaction_op WHERE tid = ? AND seqnum IN (SELECT value FROM json_each(?))`,
    bind: [tid, JSON.stringify(plan.removed)] })
  db.exec({ sql: `INSERT OR REPLACE INTO feature_transaction_op (tid, seqnum, payload, error)
    SELECT ?, j.value ->> '$[0]', j.value ->> '$[1]', NULL FROM json_each(?) j`,
  bind: [tid, JSON.stringify(plan.put)] })
  return undefined
}

export function setTransactionErrors(db: SqlDb, tid: number, errors: [number, string][]): void {
  db.exec({ sql: `UPDATE feature_transaction_op SET error = j.value ->> '$[1]' FROM json_each(?) j
    WHERE tid = ? AND seqnum = j.value ->> '$[0]'`, bind: [JSON.stringify(errors), tid] })
}

export function commitTransaction(db: SqlDb, tid: number, committed: string, results: [number, string][]): void {
  db.exec({ sql: `INSERT INTO feature_transaction_result (tid, seqnum, value) SELECT ?, j.value ->> '$[0]', j.value ->> '$[1]'
    FROM json_each(?) j`, bind: [tid, JSON.stringify(results)] })
  // The operations are done with; the results answer any later read.
  db.exec({ sql: `DELETE FROM feature_transaction_op WHERE tid = ?`, bind: [tid] })
  db.exec({ sql: `UPDATE feature_transaction SET committed = ? WHERE id = ?`, bind: [committed, tid] })
}

export function disposeTransaction(db: SqlDb, tid: number): void {
  for (const sql of [`DELETE FROM feature_transaction_op WHERE tid = ?`, `DELETE FROM feature_transaction_result WHERE tid = ?`,
    `DELETE FROM feature_transaction WHERE id = ?`]) db.exec({ sql, bind: [tid] })
}
