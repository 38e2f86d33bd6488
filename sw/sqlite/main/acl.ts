/**
 * @module sqlite/main/acl
 * What the permission evaluator (auth/acl.ts) reads (`AclRead`): the ACL change token and its
 * log (`acl_state`, `acl_change`, kept by triggers: sqlite/schema/acl.ts steps 1–2), the nodes of
 * the tree (id, parent, class, rules), the system principals and memberships. The statements a
 * check runs on every request are prepared once per connection: preparing them was most of a
 * check's time (~10-40 µs each, a prepared step ~3 µs). oo1 finalizes them when the connection
 * closes, and a new connection is a new key.
 */
import type { SqlDb } from '../../store/database.ts'
import type { AclRead } from '../../auth/repository.ts'
import type { AclRow, AclRule } from '../../auth/acl.ts'

type Statement = ReturnType<SqlDb['prepare']>
const statements = new WeakMap<SqlDb, Map<string, Statement>>()

/** The rows of `sql` (arrays), through its statement on `db`; reset (bindings cleared) before returning. */
function rowsOf(db: SqlDb, sql: string, bind?: Array<number | string>): unknown[][] {
  let byDb = statements.get(db)
  if (!byDb) statements.set(db, byDb = new Map())
  let st = byDb.get(sql)
  if (!st) byDb.set(sql, st = db.prepare(sql))
  try {
    if (bind) st.bind(bind)
    const out: unknown[][] = []
    while (st.step()) out.push(st.get([]))
    return out
  } finally {
    st.reset(true)
  }
}

type RowArray = [number, number | null, string, string]
const rowOf = ([id, parent_id, cls, permissions]: RowArray): AclRow => ({ id, parent_id, cls, permissions })

const CHAIN = `WITH RECURSIVE up(id) AS (SELECT ? UNION ALL SELECT r.parent_id FROM resource r JOIN up ON r.id = up.id
  WHERE r.parent_id IS NOT NULL) SELECT r.id, r.parent_id, r.cls, r.permissions FROM up JOIN resource r ON r.id = up.id`

/** The evaluator's reads over the connection of one read or unit of work (sw/sqlite/tx.ts). */
export function aclRead(db: SqlDb): AclRead {
  return {
    token: async () => Number(rowsOf(db, 'SELECT version FROM acl_state')[0]![0]),
    // Arrays, not objects: this runs on the request after every change of rules (~40% cheaper).
    changes: async (since) => (rowsOf(db, `SELECT c.resource_id, r.id, r.parent_id, r.cls, r.permissions
        FROM acl_change c LEFT JOIN resource r ON r.id = c.resource_id WHERE c.version > ? ORDER BY c.version`, [since]) as
        Array<[number | null, number | null, number | null, string, string]>)
      .map(([resourceId, id, parent_id, cls, permissions]) =>
        ({ resourceId, row: id === null ? null : { id, parent_id, cls, permissions } })),
    chain: async (id) => (rowsOf(db, CHAIN, [id]) as RowArray[]).map(rowOf),
    rows: async (ids) => ids.length === 1
      ? (rowsOf(db, `SELECT id, parent_id, cls, permissions FROM resource WHERE id = ?`, [ids[0]!]) as RowArray[]).map(rowOf)
      : (db.selectArrays(`SELECT id, parent_id, cls, permissions FROM resource WHERE id IN (SELECT value FROM json_each(?))`,
        [JSON.stringify(ids)]) as RowArray[]).map(rowOf),
    subjects: async () => {
      const ids = Object.fromEntries((db.selectArrays(`SELECT keyname, id FROM principal
        WHERE keyname IN ('everyone', 'authenticated', 'guest') AND system = 1`) as Array<[string, number]>))
      return {
        system: { everyone: ids.everyone!, authenticated: ids.authenticated!, guest: ids.guest! },
        memberships: db.selectArrays(`SELECT user_id, group_id FROM principal_member`) as [number, number][],
      }
    },
    allowRules: async () => (db.selectValues(`SELECT DISTINCT value FROM resource, json_each(resource.permissions)
        WHERE json_extract(value, '$.action') = 'allow'`) as string[]).map((t) => JSON.parse(t) as AclRule),
  }
}
