/**
 * @module postgres/main/resources
 * The resource tree on PostgreSQL (`ResourceRead/Write`, tables `resource` and `resmeta`),
 * answering as sqlite/main/resources.ts does: the same rows, orders and texts. Text orders use
 * the C collation (SQLite's BINARY), whatever the database's default. The tree triggers'
 * refusals (schema/resources.ts) become the original's 422s (`treeRefusal`).
 */
import { refOf, type RefColumns } from '../../resource/refs.ts'
import type { PageQuery, ResourceRead, ResourceSearch, ResourceWrite, SearchColumn } from '../../resource/repository.ts'
import type { ResourceRow } from '../../resource/types.ts'
import type { ResmetaValue } from '../../resource/resmeta.ts'
import { treeRefusal } from '../../resource/errors.ts'
import type { PgConn } from '../conn.ts'
import { keepingId, reserveIds } from './sequence.ts'

const ROW_COLUMNS = 'id, cls, parent_id, keyname, display_name, description, owner_user_id, creation_date, permissions, data'
const REF_COLUMNS = 'id, cls, parent_id, display_name, data'

/** Awaits `run` (statements on `resource`); a tree trigger's refusal becomes its 422. */
async function guardTree<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (err) {
    throw treeRefusal(err) ?? err
  }
}

const subtreeOf = (param: string) =>
  `WITH RECURSIVE t(id) AS (SELECT ${param}::bigint UNION ALL SELECT r.id FROM resource r JOIN t ON r.parent_id = t.id) SELECT id FROM t`

const ORDER_COLUMNS: Record<ResourceSearch['order'][number]['key'], string> = {
  name: 'display_name COLLATE "C"', type: 'cls COLLATE "C"', owner: 'owner_user_id', created: 'creation_date COLLATE "C"',
}

/**
 * The WHERE clause and its parameters of a parsed search (resource/search.ts). `like` is
 * case-sensitive with only `%` and `_` special (no escape character), as SQLite's GLOB of the
 * same pattern; `ilike` compares lower-cased, as SQLite's.
 */
function searchWhere(q: ResourceSearch): [string, unknown[]] {
  const where: string[] = []
  const bind: unknown[] = []
  const p = (v: unknown) => { bind.push(v); return `$${bind.length}` }
  for (const m of q.resmeta) {
    const exists = `EXISTS (SELECT 1 FROM resmeta m WHERE m.resource_id = resource.id AND m.key = ${p(m.key)}`
    if (m.op === 'has' || m.op === 'has_not') {
      where.push(`${m.op === 'has' ? '' : 'NOT '}${exists})`)
    } else if (m.op === 'eq') {
      where.push(`${exists} AND m.value = ${p(JSON.stringify(m.value))})`)
    } else if (m.op === 'like' || m.op === 'ilike') {
      const text = `(m.value::jsonb #>> '{}')`
      const cond = m.op === 'like' ? `${text} LIKE ${p(m.value)} ESCAPE ''` : `lower(${text}) LIKE lower(${p(m.value)}) ESCAPE ''`
      where.push(`${exists} AND jsonb_typeof(m.value::jsonb) = 'string' AND ${cond})`)
    }
  }
  for (const root of q.roots) where.push(`id IN (${subtreeOf(p(root))})`)
  for (const { column, op, value } of q.columns) {
    const col: SearchColumn = column
    if (op === 'in') {
      const values = value as Array<string | number>
      where.push(values.length ? `${col} = ANY(${p(values)})` : 'false')
    } else if (op === 'like') {
      where.push(`${col}::text LIKE ${p(String(value))} ESCAPE ''`)
    } else if (op === 'ilike') {
      where.push(`lower(${col}::text) LIKE lower(${p(String(value))}) ESCAPE ''`)
    } else {
      where.push(`${col} = ${p(value)}`)
    }
  }
  return [where.length ? where.join(' AND ') : 'true', bind]
}

/** A text as JSON writes it (`JSON.stringify`'s escapes), `null` for NULL. */
const quoted = (expr: string) => `coalesce(to_json(${expr})::text, 'null')`

/**
 * The one query that writes a page's JSON text (`ResourceRead.page`), as SQLite's: one text per
 * row by concatenation (the stored rules and resmeta values are JSON texts already), in the
 * order of `ids`, the class pieces joined from parallel arrays.
 */
function pageQuery(q: PageQuery): [string, unknown[]] {
  const members = q.members?.size ? q.members : undefined
  const names = [...q.classes.keys()]
  const bind: unknown[] = [q.ids, members ? q.ids.map((id) => members.get(id) ?? null) : null,
    names, names.map((n) => JSON.stringify(q.classes.get(n)!.identity)), names.map((n) => q.classes.get(n)!.tail)]
  const resource = `'{"resource":{"id":', r.id, ',"cls":', c.identity, ',"creation_date":', ${quoted('r.creation_date')},
      ',"parent":', CASE WHEN r.parent_id IS NULL THEN 'null' ELSE concat('{"id":', r.parent_id, ',"parent":{"id":',
        coalesce((SELECT p.parent_id FROM resource p WHERE p.id = r.parent_id)::text, 'null'), '}}') END,
      ',"owner_user":{"id":', r.owner_user_id, '},"permissions":', r.permissions, ',"keyname":', ${quoted('r.keyname')},
      ',"display_name":', ${quoted('r.display_name')}, ',"description":', ${quoted('r.description')},
      ',"children":', CASE WHEN EXISTS (SELECT 1 FROM resource k WHERE k.parent_id = r.id) THEN 'true' ELSE 'false' END,
      c.tail, '}'`
  const item = !q.full ? `concat(${resource}, '}')` : `concat(${resource},
      ',"resmeta":{"items":{', (SELECT string_agg(to_json(m.key)::text || ':' || m.value, ',' ORDER BY m.key COLLATE "C")
        FROM resmeta m WHERE m.resource_id = r.id),
      '}},"social":{"image_exists":false,"description":null}', ',' || j.member, '}')`
  return [`SELECT '[' || coalesce(string_agg(${item}, ',' ORDER BY j.n), '') || ']'
      FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS j(id, member, n)
      JOIN resource r ON r.id = j.id
      LEFT JOIN unnest($3::text[], $4::text[], $5::text[]) AS c(name, identity, tail) ON c.name = r.cls`, bind]
}

export const resourcesRead = (db: PgConn): ResourceRead => ({
  get: async (id) => db.row<ResourceRow>(`SELECT ${ROW_COLUMNS} FROM resource WHERE id = $1`, [id]),
  refs: async (ids) => {
    if (!ids.length) return []
    return (await db.rows<RefColumns>(`SELECT ${REF_COLUMNS} FROM resource WHERE id = ANY($1::bigint[]) ORDER BY id`, [ids])).map(refOf)
  },
  ofClass: async (cls) => (await db.rows<RefColumns>(`SELECT ${REF_COLUMNS} FROM resource WHERE cls = $1 ORDER BY id`, [cls])).map(refOf),
  children: async (parentId) => db.rows<{ id: number; cls: string }>(`SELECT id, cls FROM resource WHERE parent_id = $1 ORDER BY id`, [parentId]),
  names: async (ids) => new Map((await db.rows<{ id: number; display_name: string }>(
    `SELECT id, display_name FROM resource WHERE id = ANY($1::bigint[])`, [ids])).map((r) => [r.id, r.display_name])),
  hasChildren: async (id) => (await db.value(`SELECT 1 FROM resource WHERE parent_id = $1 LIMIT 1`, [id])) !== undefined,
  parentOf: async (id) => (await db.row<{ parent_id: number | null }>(`SELECT parent_id FROM resource WHERE id = $1`, [id]))?.parent_id,
  subtree: async (id) => (await db.rows<{ id: number }>(subtreeOf('$1'), [id])).map((r) => r.id),
  path: async (id) => db.rows<{ id: number; display_name: string }>(`WITH RECURSIVE up(id, parent_id, display_name, depth) AS (
      SELECT id, parent_id, display_name, 0 FROM resource WHERE id = (SELECT parent_id FROM resource WHERE id = $1)
      UNION ALL SELECT r.id, r.parent_id, r.display_name, up.depth + 1 FROM resource r JOIN up ON r.id = up.parent_id)
    SELECT id, display_name FROM up ORDER BY depth DESC`, [id]),
  nameTaken: async ({ keyname, parentId, displayName, exceptId }) => {
    if (keyname !== undefined) {
      const other = await db.value<number>(`SELECT id FROM resource WHERE keyname = $1 AND id != $2 LIMIT 1`, [keyname, exceptId])
      if (other !== undefined) return other
    }
    if (parentId !== undefined && displayName !== undefined) {
      return db.value<number>(`SELECT id FROM resource WHERE parent_id = $1 AND display_name = $2 AND id != $3 LIMIT 1`,
        [parentId, displayName, exceptId])
    }
    return undefined
  },
  search: async (q) => {
    const [cond, bind] = searchWhere(q)
    const total = Number(await db.value(`SELECT count(*) FROM resource WHERE ${cond}`, bind))
    const all: unknown[] = [...bind]
    const order = [...q.order.map((o) => {
      // A rank: the class's place in the bound list `,a,b,…,`.
      if (o.rank) all.push(`,${o.rank.join(',')},`)
      return `${o.rank ? `strpos($${all.length}::text, ',' || cls || ',')` : ORDER_COLUMNS[o.key]} ${o.desc ? 'DESC' : 'ASC'}`
    }), 'id'].join(', ')
    const page = q.page ? ` LIMIT $${all.length + 1} OFFSET $${all.length + 2}` : ''
    const rows = await db.rows<ResourceRow>(`SELECT ${ROW_COLUMNS} FROM resource WHERE ${cond} ORDER BY ${order}${page}`,
      q.page ? [...all, q.page.limit, q.page.offset] : all)
    return { rows, total }
  },
  page: async (q) => q.ids.length ? (await db.value<string>(...pageQuery(q)))! : '[]',
  pageBytes: async (q) => new TextEncoder().encode(q.ids.length ? (await db.value<string>(...pageQuery(q)))! : '[]'),
  resmeta: async (id) => {
    const out: Record<string, ResmetaValue> = {}
    for (const { key, value } of await db.rows<{ key: string; value: string }>(
      `SELECT key, value FROM resmeta WHERE resource_id = $1 ORDER BY key COLLATE "C"`, [id])) {
      out[key] = JSON.parse(value) as ResmetaValue
    }
    return out
  },
  maxDataNumber: async (path) => Number(await db.value(`SELECT coalesce(max((data::jsonb #>> $1::text[])::numeric), 0) FROM resource
    WHERE jsonb_typeof(data::jsonb #> $1::text[]) = 'number'`, [path.split('.')])),
})

/** The columns each field of a patch sets. */
const PATCH_COLUMNS = {
  parentId: 'parent_id', keyname: 'keyname', displayName: 'display_name', description: 'description',
  ownerUserId: 'owner_user_id', permissions: 'permissions', data: 'data',
} as const

const INSERT = `INSERT INTO resource (cls, parent_id, keyname, display_name, description, owner_user_id, creation_date, permissions`

export const resourcesWrite = (db: PgConn): ResourceWrite => ({
  ...resourcesRead(db),
  insert: async (r) => guardTree(async () => {
    const values = [r.cls, r.parentId, r.keyname, r.displayName, r.description, r.ownerUserId, r.creationDate, r.permissions]
    if (r.id === undefined || r.id === null) {
      return (await db.value<number>(`${INSERT}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`, values))!
    }
    return (await db.value<number>(keepingId('resource', `${INSERT}, id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`), [...values, r.id]))!
  }),
  update: async (id, p) => {
    const sets: string[] = []
    const bind: unknown[] = []
    for (const [key, col] of Object.entries(PATCH_COLUMNS) as [keyof typeof PATCH_COLUMNS, string][]) {
      if (!(key in p) || p[key] === undefined) continue
      bind.push(key === 'data' ? JSON.stringify(p.data) : p[key])
      sets.push(`${col} = $${bind.length}`)
    }
    if (sets.length) await guardTree(() => db.exec(`UPDATE resource SET ${sets.join(', ')} WHERE id = $${bind.length + 1}`, [...bind, id]))
  },
  setData: async (id, data) => { await db.exec(`UPDATE resource SET data = $1 WHERE id = $2`, [JSON.stringify(data), id]) },
  delete: async (ids) => {
    if (!ids.length) return
    await guardTree(() => db.exec(`DELETE FROM resource WHERE id = ANY($1::bigint[])`, [ids]))
  },
  setResmeta: async (id, items) => {
    await db.exec(`DELETE FROM resmeta WHERE resource_id = $1`, [id])
    const entries = Object.entries(items)
    if (entries.length) {
      await db.exec(`INSERT INTO resmeta (resource_id, key, value) SELECT $1, k, v FROM unnest($2::text[], $3::text[]) AS t(k, v)`,
        [id, entries.map(([k]) => k), entries.map(([, v]) => JSON.stringify(v))])
    }
  },
  reserveIds: async (count) => reserveIds(db, 'resource', count),
})
