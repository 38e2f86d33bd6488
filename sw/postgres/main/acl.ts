/**
 * @module postgres/main/acl
 * What the permission evaluator (auth/acl.ts) reads (`AclRead`) on PostgreSQL, as
 * sqlite/main/acl.ts: the change token and its log (`acl_state`, `acl_change`, kept by the
 * triggers of schema/acl.ts), the tree's nodes (id, parent, class, rules), the system
 * principals and memberships (auth's tables `principal` and `principal_member`).
 */
import type { AclRead } from '../../auth/repository.ts'
import type { AclRow, AclRule } from '../../auth/acl.ts'
import type { PgConn } from '../conn.ts'

/** The node first, then its ancestors upwards (SQLite's order: a join keeps no order here without `depth`). */
const CHAIN = `WITH RECURSIVE up(id, depth) AS (SELECT $1::bigint, 0 UNION ALL SELECT r.parent_id, up.depth + 1 FROM resource r
  JOIN up ON r.id = up.id WHERE r.parent_id IS NOT NULL)
  SELECT r.id, r.parent_id, r.cls, r.permissions FROM up JOIN resource r ON r.id = up.id ORDER BY up.depth`

export const aclRead = (db: PgConn): AclRead => ({
  token: async () => Number(await db.value('SELECT version FROM acl_state')),
  changes: async (since) => (await db.rows<{ resource_id: number | null } & { [K in keyof AclRow]: AclRow[K] | null }>(
    `SELECT c.resource_id, r.id, r.parent_id, r.cls, r.permissions
      FROM acl_change c LEFT JOIN resource r ON r.id = c.resource_id WHERE c.version > $1 ORDER BY c.version`, [since]))
    .map(({ resource_id, id, parent_id, cls, permissions }) =>
      ({ resourceId: resource_id, row: id === null ? null : { id, parent_id, cls: cls!, permissions: permissions! } })),
  chain: async (id) => db.rows<AclRow>(CHAIN, [id]),
  rows: async (ids) => db.rows<AclRow>(`SELECT id, parent_id, cls, permissions FROM resource WHERE id = ANY($1::bigint[])`, [ids]),
  subjects: async () => {
    // `system::integer`: a flag whichever way auth's schema stores it (0/1 as SQLite, or boolean).
    const ids = Object.fromEntries((await db.rows<{ keyname: string; id: number }>(`SELECT keyname, id FROM principal
      WHERE keyname IN ('everyone', 'authenticated', 'guest') AND system::integer = 1`)).map((r) => [r.keyname, r.id]))
    return {
      system: { everyone: ids.everyone!, authenticated: ids.authenticated!, guest: ids.guest! },
      memberships: (await db.rows<{ user_id: number; group_id: number }>(`SELECT user_id, group_id FROM principal_member`))
        .map((m): [number, number] => [m.user_id, m.group_id]),
    }
  },
  // The rules' own text (json keeps it; jsonb would reorder keys), distinct as text as on SQLite.
  allowRules: async () => (await db.rows<{ rule: string }>(`SELECT DISTINCT e.value::text AS rule
      FROM resource, json_array_elements(resource.permissions::json) e WHERE e.value ->> 'action' = 'allow'`))
    .map((r) => JSON.parse(r.rule) as AclRule),
})
