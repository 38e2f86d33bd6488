/**
 * @module sqlite/main/resources
 * The resource tree in the main database (`ResourceRead/Write`, tables `resource` and
 * `resmeta`). The rules (who may, which names, which parents) stay in resource/service.ts;
 * this file stores, and turns the tree triggers' refusals (sqlite/schema/resources.ts, step 2: a root
 * moved or deleted, a resource without a parent, a cycle) into the original's 422s, so a path
 * that skipped the service's own checks still answers as the service would.
 */
import { refOf, type RefColumns } from '../../resource/refs.ts'
import type { SqlDb } from '../../store/database.ts'
import { SQLITE_BLOB } from '../../store/row-reader.ts'
import type { PageQuery, ResourceRead, ResourceSearch, ResourceWrite, SearchColumn } from '../../resource/repository.ts'
import type { ResourceRow } from '../../resource/types.ts'
import type { ResmetaValue } from '../../resource/resmeta.ts'
import { treeRefusal } from '../../resource/errors.ts'
import { reserveIds } from './sequence.ts'
import { likeToGlob } from '../like.ts'

type Bind = string | number | null

const ROW_COLUMNS = 'id, cls, parent_id, keyname, display_name, description, owner_user_id, creation_date, permissions, data'
const REF_COLUMNS = 'id, cls, parent_id, display_name, data'

/** Runs `fn` (statements on `resource`); a tree trigger's refusal becomes its 422. */
export function guardTree<T>(fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    throw treeRefusal(err) ?? err
  }
}

/**
 * The rows `where` selects, in its order. They come back as one JSON text and are parsed in
 * JavaScript: reading 10,000 rows column by column through the WASM binding took 100–150 ms,
 * the same rows as one JSON text ~20 ms (test/bench/permissions.bench.ts).
 */
function selectRows(db: SqlDb, where: string, bind: Bind[]): ResourceRow[] {
  // An aggregate over an ordered subquery keeps its order (SQLite does not flatten such a subquery).
  const text = db.selectValue(`SELECT json_group_array(json_array(${ROW_COLUMNS})) FROM
    (SELECT ${ROW_COLUMNS} FROM resource WHERE ${where})`, bind.length ? bind : undefined) as string
  return (JSON.parse(text) as Array<[number, string, number | null, string | null, string, string | null, number, string, string, string]>)
    .map(([id, cls, parent_id, keyname, display_name, description, owner_user_id, creation_date, permissions, data]) =>
      ({ id, cls, parent_id, keyname, display_name, description, owner_user_id, creation_date, permissions, data }))
}

const SUBTREE = `WITH RECURSIVE t(id) AS (SELECT ? UNION ALL SELECT r.id FROM resource r JOIN t ON r.parent_id = t.id) SELECT id FROM t`

const ORDER_COLUMNS: Record<ResourceSearch['order'][number]['key'], string> = {
  name: 'display_name', type: 'cls', owner: 'owner_user_id', created: 'creation_date',
}

/** The WHERE clause and its bindings of a parsed search (resource/search.ts). */
function searchWhere(q: ResourceSearch): [string, Bind[]] {
  const where: string[] = []
  const bind: Bind[] = []
  for (const m of q.resmeta) {
    const exists = `EXISTS (SELECT 1 FROM resmeta m WHERE m.resource_id = resource.id AND m.key = ?`
    if (m.op === 'has' || m.op === 'has_not') {
      where.push(`${m.op === 'has' ? '' : 'NOT '}${exists})`)
      bind.push(m.key)
    } else if (m.op === 'eq') {
      where.push(`${exists} AND m.value = ?)`)
      bind.push(m.key, JSON.stringify(m.value))
    } else if (m.op === 'like' || m.op === 'ilike') {
      const cond = m.op === 'like' ? `json_extract(m.value, '$') GLOB ?` : `lower(json_extract(m.value, '$')) LIKE lower(?)`
      where.push(`${exists} AND json_type(m.value) = 'text' AND ${cond})`)
      bind.push(m.key, m.op === 'like' ? likeToGlob(m.value) : m.value)
    }
  }
  for (const root of q.roots) {
    where.push(`id IN (${SUBTREE})`)
    bind.push(root)
  }
  for (const { column, op, value } of q.columns) {
    const col: SearchColumn = column
    if (op === 'in') {
      const values = value as Array<string | number>
      where.push(values.length ? `${col} IN (${values.map(() => '?').join(',')})` : '0')
      bind.push(...values)
    } else if (op === 'like') {
      where.push(`${col} GLOB ?`)
      bind.push(likeToGlob(String(value)))
    } else if (op === 'ilike') {
      where.push(`lower(${col}) LIKE lower(?)`)
      bind.push(String(value))
    } else {
      where.push(`${col} = ?`)
      bind.push(value as string | number)
    }
  }
  return [where.length ? where.join(' AND ') : '1', bind]
}

/** The one query that writes a page's JSON text, and its bindings (`ResourceRead.page`). */
function pageQuery(q: PageQuery): [string, string[]] {
  const members = q.members?.size ? q.members : undefined
  const names = [...q.classes.keys()]
  const byClass = (piece: 1 | 2) => `CASE r.cls ${names.map((_, i) => `WHEN ?${2 + 3 * i} THEN ?${2 + 3 * i + piece}`).join(' ')} END`
  // Ids in order, paired with their members' text only when the page has any (a pair costs ~8 ms in 5,000).
  const bind: string[] = [JSON.stringify(members ? q.ids.map((id) => [id, members.get(id) ?? null]) : q.ids)]
  for (const name of names) {
    const c = q.classes.get(name)!
    bind.push(name, JSON.stringify(c.identity), c.tail)
  }
  // One text per row by concatenation, strings quoted by SQLite as JSON.stringify quotes them:
  // nested json_object() parses each inner object again and took twice as long.
  const resource = `'{"resource":{"id":', r.id, ',"cls":', ${byClass(1)}, ',"creation_date":', json_quote(r.creation_date),
      ',"parent":', CASE WHEN r.parent_id IS NULL THEN 'null' ELSE concat('{"id":', r.parent_id, ',"parent":{"id":',
        coalesce((SELECT p.parent_id FROM resource p WHERE p.id = r.parent_id), 'null'), '}}') END,
      ',"owner_user":{"id":', r.owner_user_id, '},"permissions":', json(r.permissions), ',"keyname":', json_quote(r.keyname),
      ',"display_name":', json_quote(r.display_name), ',"description":', json_quote(r.description),
      ',"children":', CASE WHEN EXISTS (SELECT 1 FROM resource k WHERE k.parent_id = r.id) THEN 'true' ELSE 'false' END,
      ${byClass(2)}, '}'`
  const item = !q.full ? `concat(${resource}, '}')` : `concat(${resource},
      ',"resmeta":{"items":', coalesce((SELECT json_group_object(m.key, json(m.value)) FROM
        (SELECT key, value FROM resmeta WHERE resource_id = r.id ORDER BY key) m), '{}'),
      '},"social":{"image_exists":false,"description":null}', ${members ? `',' || (j.value ->> 1),` : ''} '}')`
  return [`SELECT '[' || coalesce(group_concat(${item}, ',' ORDER BY j.key), '') || ']'
      FROM json_each(?1) j JOIN resource r ON r.id = ${members ? 'j.value ->> 0' : 'j.value'}`, bind]
}

export const resourcesRead = (db: SqlDb): ResourceRead => ({
  get: async (id) => db.selectObject(`SELECT ${ROW_COLUMNS} FROM resource WHERE id = ?`, [id]) as ResourceRow | undefined,
  refs: async (ids) => {
    if (!ids.length) return []
    const rows = (ids.length === 1
      ? db.selectObjects(`SELECT ${REF_COLUMNS} FROM resource WHERE id = ?`, [ids[0]!])
      : db.selectObjects(`SELECT ${REF_COLUMNS} FROM resource WHERE id IN (SELECT value FROM json_each(?))`, [JSON.stringify(ids)])) as RefColumns[]
    return rows.map(refOf)
  },
  ofClass: async (cls) => (db.selectObjects(`SELECT ${REF_COLUMNS} FROM resource WHERE cls = ? ORDER BY id`, [cls]) as RefColumns[]).map(refOf),
  children: async (parentId) => {
    // Two flat arrays (ids, classes): 10,000 children read as one array of [id, cls, display_name]
    // took ~10 ms to make, decode and parse, these ~3 ms.
    const [ids, classes] = db.selectArray(`SELECT json_group_array(id), json_group_array(cls) FROM resource WHERE parent_id = ?`,
      [parentId]) as [string, string]
    const cls = JSON.parse(classes) as string[]
    return (JSON.parse(ids) as number[]).map((id, i) => ({ id, cls: cls[i]! }))
  },
  names: async (ids) => {
    const [got, texts] = db.selectArray(`SELECT json_group_array(r.id), json_group_array(r.display_name)
      FROM json_each(?) j JOIN resource r ON r.id = j.value`, [JSON.stringify(ids)]) as [string, string]
    const name = JSON.parse(texts) as string[]
    return new Map((JSON.parse(got) as number[]).map((id, i) => [id, name[i]!]))
  },
  hasChildren: async (id) => db.selectValue(`SELECT 1 FROM resource WHERE parent_id = ? LIMIT 1`, [id]) !== undefined,
  parentOf: async (id) => {
    const row = db.selectArray(`SELECT parent_id FROM resource WHERE id = ?`, [id]) as [number | null] | undefined
    return row ? row[0] : undefined
  },
  subtree: async (id) => (db.selectValues(SUBTREE, [id]) as number[]).map(Number),
  path: async (id) => db.selectObjects(`WITH RECURSIVE up(id, parent_id, display_name, depth) AS (
      SELECT id, parent_id, display_name, 0 FROM resource WHERE id = (SELECT parent_id FROM resource WHERE id = ?)
      UNION ALL SELECT r.id, r.parent_id, r.display_name, up.depth + 1 FROM resource r JOIN up ON r.id = up.parent_id)
    SELECT id, display_name FROM up ORDER BY depth DESC`, [id]) as { id: number; display_name: string }[],
  nameTaken: async ({ keyname, parentId, displayName, exceptId }) => {
    if (keyname !== undefined) {
      const other = db.selectValue(`SELECT id FROM resource WHERE keyname = ? AND id != ?`, [keyname, exceptId])
      if (other !== undefined) return Number(other)
    }
    if (parentId !== undefined && displayName !== undefined) {
      const other = db.selectValue(`SELECT id FROM resource WHERE parent_id = ? AND display_name = ? AND id != ?`, [parentId, displayName, exceptId])
      if (other !== undefined) return Number(other)
    }
    return undefined
  },
  search: async (q) => {
    const [cond, bind] = searchWhere(q)
    // sqlite-wasm refuses an empty bind array for a statement without parameters.
    const total = Number(db.selectValue(`SELECT count(*) FROM resource WHERE ${cond}`, bind.length ? bind : undefined))
    const orderBind: Bind[] = []
    const order = q.order.map((o) => {
      // A rank: the class's place in the bound list `,a,b,…,`.
      if (o.rank) orderBind.push(`,${o.rank.join(',')},`)
      return `${o.rank ? `instr(?, ',' || cls || ',')` : ORDER_COLUMNS[o.key]} ${o.desc ? 'DESC' : 'ASC'}`
    })
    const page = q.page ? ` LIMIT ${q.page.limit ?? -1} OFFSET ${q.page.offset}` : ''
    return { rows: selectRows(db, `${cond} ORDER BY ${[...order, 'id'].join(', ')}${page}`, [...bind, ...orderBind]), total }
  },
  page: async (q) => q.ids.length ? db.selectValue(...pageQuery(q)) as string : '[]',
  pageBytes: async (q) => {
    if (!q.ids.length) return new TextEncoder().encode('[]')
    // Asked for as a blob, SQLite hands out the text's own bytes (UTF-8 in, UTF-8 out: no conversion).
    const [sql, bind] = pageQuery(q)
    return db.selectValue(sql, bind, SQLITE_BLOB) as Uint8Array<ArrayBuffer>
  },
  resmeta: async (id) => {
    const out: Record<string, ResmetaValue> = {}
    for (const [key, value] of db.selectArrays(`SELECT key, value FROM resmeta WHERE resource_id = ? ORDER BY key`, [id]) as [string, string][]) {
      out[key] = JSON.parse(value) as ResmetaValue
    }
    return out
  },
  maxDataNumber: async (path) => Number(db.selectValue(`SELECT coalesce(max(json_extract(data, ?)), 0) FROM resource`, [`$.${path}`])),
})

/** The columns each field of a patch sets, and how its value is stored. */
const PATCH_COLUMNS = {
  parentId: 'parent_id', keyname: 'keyname', displayName: 'display_name', description: 'description',
  ownerUserId: 'owner_user_id', permissions: 'permissions', data: 'data',
} as const

export const resourcesWrite = (db: SqlDb): ResourceWrite => ({
  ...resourcesRead(db),
  insert: async (r) => guardTree(() => {
    db.exec({ sql: `INSERT INTO resource (id, cls, parent_id, keyname, display_name, description, owner_user_id, creation_date, permissions)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      bind: [r.id ?? null, r.cls, r.parentId, r.keyname, r.displayName, r.description, r.ownerUserId, r.creationDate, r.permissions] })
    return Number(db.selectValue('SELECT last_insert_rowid()'))
  }),
  update: async (id, p) => {
    const sets: string[] = []
    const bind: Bind[] = []
    for (const [key, col] of Object.entries(PATCH_COLUMNS) as [keyof typeof PATCH_COLUMNS, string][]) {
      if (!(key in p) || p[key] === undefined) continue
      sets.push(`${col} = ?`)
      bind.push(key === 'data' ? JSON.stringify(p.data) : p[key] as Bind)
    }
    if (sets.length) guardTree(() => db.exec({ sql: `UPDATE resource SET ${sets.join(', ')} WHERE id = ?`, bind: [...bind, id] }))
  },
  setData: async (id, data) => { db.exec({ sql: `UPDATE resource SET data = ? WHERE id = ?`, bind: [JSON.stringify(data), id] }) },
  delete: async (ids) => {
    if (!ids.length) return
    guardTree(() => db.exec({ sql: `DELETE FROM resource WHERE id IN (SELECT value FROM json_each(?))`, bind: [JSON.stringify(ids)] }))
  },
  setResmeta: async (id, items) => {
    db.exec({ sql: `DELETE FROM resmeta WHERE resource_id = ?`, bind: [id] })
    for (const [k, v] of Object.entries(items)) {
      db.exec({ sql: `INSERT INTO resmeta (resource_id, key, value) VALUES (?, ?, ?)`, bind: [id, k, JSON.stringify(v)] })
    }
  },
  reserveIds: async (count) => reserveIds(db, 'resource', count),
})
