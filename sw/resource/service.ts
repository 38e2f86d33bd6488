// port: legacy-sql (issue 22)
/**
 * @module resource/service
 * The resource tree: create, read, change, move, delete, list and search. Every function
 * takes an open SQLite handle inside the caller's read or write; writes throw `ApiError`
 * before anything is left half-done (the caller's transaction rolls back).
 */
import { insufficientPermissions, validationError } from '../core/error.ts'
import type { AclEvaluator } from '../auth/acl.ts'
import { expectKind, expectObject, expectRef } from '../core/validate.ts'
import type { AfterCommit, ClassContext, ClassData, ClassLookup } from './class.ts'
import type { Database, SqlDb } from '../store/database.ts'
import { createForbidden, displayNameNotUnique, hierarchyError, keynameNotUnique, rootDeleteError, unknownClass } from './errors.ts'
import type { ResourceRef, ResourceRow } from './types.ts'
import { refOf } from './refs.ts'
import { applyResmeta } from './resmeta.ts'
import { guardTree } from './tree-guard.ts'
import { permissionsInput } from './acl-input.ts'
import { SQLITE_BLOB } from '../store/row-reader.ts'
import type { JournalEntry } from './repository.ts'
import type { Awaitable, DataPort, MainWrite } from '../port/port.ts'
import { legacyDb } from '../port/legacy.ts'

/** What the tree's functions get: the main database inside a read or write, and the classes. */
export interface ResourceContext extends ClassContext {
  classes: ClassLookup
  /** The permission evaluator; without it (the demo's seeding) nothing is checked. */
  acl?: AclEvaluator
  /** The journal entries of a write, written by `writeTree` before its commit; absent in a read. */
  journal?: JournalEntry[]
}

/**
 * Runs `fn` in one unit of work of the data port with a tree context over it (`db` is the
 * transition's `legacyDb`); the journal entries `fn` noted are written in the same unit of work.
 * Each run of `fn` gets a fresh context, since the port may run it twice.
 */
export function writeTree<T>(data: DataPort, base: (db: SqlDb) => Omit<ResourceContext, 'journal'>,
  fn: (ctx: ResourceContext, tx: MainWrite) => Awaitable<T>): Promise<T> {
  return data.unitOfWork(async (tx) => {
    const ctx: ResourceContext = { ...base(legacyDb(tx)), journal: [] }
    const out = await fn(ctx, tx)
    for (const e of ctx.journal!) await tx.journal.add(e)
    return out
  })
}

/** 403 InsufficientPermissions unless the context's user has `scope.permission` on resource `id`. */
export function requirePermission(ctx: ResourceContext, id: number, scope: string, permission: string): void {
  if (ctx.acl && ctx.acl.has(ctx.db, ctx.user, id, scope, permission) === false) throw insufficientPermissions(permission, scope, id)
}

export const ROOT_ID = 0
const ROW_COLUMNS = 'id, cls, parent_id, keyname, display_name, description, owner_user_id, creation_date, permissions, data'

/** Naive ISO datetime without fractions, as the original writes `creation_date`. */
export const naiveIso = (d: Date) => d.toISOString().slice(0, 19)

/** Creates the root on a fresh database: a resource group, as in every NextGIS Web tree. */
export async function provisionRoot(main: Database, now: Date): Promise<void> {
  const exists = await main.read((db) => db.selectValue(`SELECT 1 FROM resource WHERE id = ?`, [ROOT_ID]))
  if (exists) return
  await main.write((db) => {
    // The original's root ACL (reference ngw-services §5.3): administrators may do everything,
    // signed-in users may read the root; principals by keyname, never by a hard-coded id.
    const idOf = (keyname: string) => db.selectValue(`SELECT id FROM principal WHERE keyname = ?`, [keyname]) as number
    const acl = [
      { action: 'allow', principal: { id: idOf('administrators') }, identity: '', scope: '', permission: '', propagate: true },
      { action: 'allow', principal: { id: idOf('authenticated') }, identity: '', scope: 'resource', permission: 'read', propagate: false },
    ]
    db.exec({ sql: `INSERT INTO resource (id, cls, parent_id, keyname, display_name, owner_user_id, creation_date, permissions)
        VALUES (?, 'resource_group', NULL, NULL, 'Main resource group', ?, ?, ?)`,
      bind: [ROOT_ID, idOf('administrator'), naiveIso(now), JSON.stringify(acl)] })
  })
}

/** The largest number at `path` (dotted) in any resource's class data; 0 when there is none. */
export function maxDataNumber(db: SqlDb, path: 'versioning.epoch'): number {
  return Number(db.selectValue(`SELECT coalesce(max(json_extract(data, ?)), 0) FROM resource`, [`$.${path}`]))
}

/** Resource `id`'s row, or `undefined` when there is none. */
export function getRow(db: SqlDb, id: number): ResourceRow | undefined {
  return db.selectObject(`SELECT ${ROW_COLUMNS} FROM resource WHERE id = ?`, [id]) as ResourceRow | undefined
}

/**
 * The rows `where` selects, in its order. They come back as one JSON text and are parsed in
 * JavaScript: reading 10,000 rows column by column through the WASM binding took 100–150 ms,
 * the same rows as one JSON text ~20 ms (test/bench/permissions.bench.ts).
 */
export function selectRows(db: SqlDb, where: string, bind: (string | number | null)[]): ResourceRow[] {
  // An aggregate over an ordered subquery keeps its order (SQLite does not flatten such a subquery).
  const text = db.selectValue(`SELECT json_group_array(json_array(${ROW_COLUMNS})) FROM
    (SELECT ${ROW_COLUMNS} FROM resource WHERE ${where})`, bind.length ? bind : undefined) as string
  return (JSON.parse(text) as Array<[number, string, number | null, string | null, string, string | null, number, string, string, string]>)
    .map(([id, cls, parent_id, keyname, display_name, description, owner_user_id, creation_date, permissions, data]) =>
      ({ id, cls, parent_id, keyname, display_name, description, owner_user_id, creation_date, permissions, data }))
}

/** What a page's serializer needs of a row: the rest is read by its query. */
export type PageRow = Pick<ResourceRow, 'id' | 'cls'>

/**
 * The composite object of one resource (`resource`, `resmeta`, `social` and the class's
 * members) as JSON text, keys in the original's order (reference §4.1).
 */
export function serialize(ctx: ResourceContext, row: PageRow, full = true): string {
  return serializeRows(ctx, [row], full).slice(1, -1)
}

/**
 * The composite objects of a page of rows (a listing, a search), in their order, as one JSON
 * array text that SQLite builds (json_object) in one query: the tree's facts, the metadata and
 * the rules go from the database to the answer without being parsed and stringified again in
 * JavaScript. Only the class members are made in JavaScript, by class (`serializeMany` where a
 * class has it), and spliced in as text; a class without members (a group) has none to make.
 * A listing of 10,000 children made 30,000 queries once, then built 5,000 objects (~30 ms).
 */
export function serializeRows(ctx: ResourceContext, rows: readonly PageRow[], full = true): string {
  return rows.length ? ctx.db.selectValue(...pageQuery(ctx, rows, full)) as string : '[]'
}

/**
 * `serializeRows` as the UTF-8 bytes SQLite wrote, for an answer that is only sent on: a page of
 * 5,000 children is ~1.8 MB, and making a JavaScript string of it out of WASM memory (~6 ms), then
 * encoding that string again for the answer's body, cost more than copying the bytes.
 */
export function serializeRowsBytes(ctx: ResourceContext, rows: readonly PageRow[], full = true): Uint8Array<ArrayBuffer> {
  if (!rows.length) return new TextEncoder().encode('[]')
  const [sql, bind] = pageQuery(ctx, rows, full)
  // Asked for as a blob, SQLite hands out the text's own bytes (UTF-8 in, UTF-8 out: no conversion).
  return ctx.db.selectValue(sql, bind, SQLITE_BLOB) as Uint8Array<ArrayBuffer>
}

/** The one query that writes a page's JSON text, and its bindings (`serializeRows`). */
function pageQuery(ctx: ResourceContext, rows: readonly PageRow[], full: boolean): [string, string[]] {
  const classes: Record<string, { identity: string; interfaces: string[]; scopes: string[] }> = {}
  const byCls = new Map<string, number[]>()
  for (const row of rows) {
    const cls = ctx.classes.get(row.cls)
    if (!classes[row.cls]) classes[row.cls] = { identity: cls.identity, interfaces: cls.interfaces, scopes: cls.scopes }
    if (!full || cls.members.length === 0) continue
    let at = byCls.get(row.cls)
    if (!at) byCls.set(row.cls, at = [])
    at.push(row.id)
  }
  // The class members by id, as the inside of an object's text (`"a":1,"b":2`).
  const members = new Map<number, string>()
  for (const [clsName, at] of byCls) {
    const cls = ctx.classes.get(clsName)
    const items = (ctx.db.selectArrays(`SELECT id, data FROM resource WHERE id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(at)]) as Array<[number, string]>).map(([id, data]) => ({ id, data: JSON.parse(data) as ClassData }))
    const made = cls.serializeMany ? cls.serializeMany(ctx, items) : items.map((it) => cls.serialize(ctx, it.id, it.data))
    items.forEach((it, k) => { const text = JSON.stringify(made[k]).slice(1, -1); if (text) members.set(it.id, text) })
  }
  // The class's constant parts (identity, interfaces, scopes) as bound texts picked by class.
  const names = Object.keys(classes)
  const byClass = (piece: 1 | 2) => `CASE r.cls ${names.map((_, i) => `WHEN ?${2 + 3 * i} THEN ?${2 + 3 * i + piece}`).join(' ')} END`
  // Ids in order, paired with their members' text only when the page has any (a pair costs ~8 ms in 5,000).
  const bind: string[] = [JSON.stringify(members.size ? rows.map((r) => [r.id, members.get(r.id) ?? null]) : rows.map((r) => r.id))]
  for (const name of names) {
    const c = classes[name]!
    bind.push(name, JSON.stringify(c.identity), `,"interfaces":${JSON.stringify(c.interfaces)},"scopes":${JSON.stringify(c.scopes)}`)
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
  const item = !full ? `concat(${resource}, '}')` : `concat(${resource},
      ',"resmeta":{"items":', coalesce((SELECT json_group_object(m.key, json(m.value)) FROM
        (SELECT key, value FROM resmeta WHERE resource_id = r.id ORDER BY key) m), '{}'),
      '},"social":{"image_exists":false,"description":null}', ${members.size ? `',' || (j.value ->> 1),` : ''} '}')`
  return [`SELECT '[' || coalesce(group_concat(${item}, ',' ORDER BY j.key), '') || ']'
      FROM json_each(?1) j JOIN resource r ON r.id = ${members.size ? 'j.value ->> 0' : 'j.value'}`, bind]
}

/**
 * Children of `parentId`, unordered (`sortRows` gives the original's order: a listing sorts only
 * the children it shows). Only what the ACL filter needs, as two flat arrays (ids, classes):
 * 10,000 children read as one array of [id, cls, display_name] took ~10 ms to make, decode and
 * parse, these ~3 ms; the names are read for the children shown only (`sortRows`).
 */
export function children(ctx: ResourceContext, parentId: number): PageRow[] {
  const [ids, classes] = ctx.db.selectArray(`SELECT json_group_array(id), json_group_array(cls) FROM resource WHERE parent_id = ?`,
    [parentId]) as [string, string]
  const cls = JSON.parse(classes) as string[]
  return (JSON.parse(ids) as number[]).map((id, i) => ({ id, cls: cls[i]! }))
}

/** `localeCompare` without arguments is this collator's compare (ECMA-402), made once, not per call. */
const byName = new Intl.Collator().compare

/** `rows` in the original's order of children: class order, then display name (read here, in one query). */
export function sortRows<T extends PageRow>(ctx: ResourceContext, rows: T[]): T[] {
  const [ids, texts] = ctx.db.selectArray(`SELECT json_group_array(r.id), json_group_array(r.display_name)
    FROM json_each(?) j JOIN resource r ON r.id = j.value`, [JSON.stringify(rows.map((r) => r.id))]) as [string, string]
  const names = new Map<number, string>()
  const name = JSON.parse(texts) as string[]
  ;(JSON.parse(ids) as number[]).forEach((id, i) => names.set(id, name[i]!))
  const order = (r: PageRow) => ctx.classes.get(r.cls).order
  return rows.sort((a, b) => order(a) - order(b) || byName(names.get(a.id)!, names.get(b.id)!) || a.id - b.id)
}

function checkNames(db: SqlDb, id: number, parentId: number | null, displayName: string, keyname: string | null): void {
  if (keyname !== null) {
    const other = db.selectValue(`SELECT id FROM resource WHERE keyname = ? AND id != ?`, [keyname, id])
    if (other !== undefined) throw keynameNotUnique(Number(other))
  }
  if (parentId !== null) {
    const other = db.selectValue(`SELECT id FROM resource WHERE parent_id = ? AND display_name = ? AND id != ?`,
      [parentId, displayName, id])
    if (other !== undefined) throw displayNameNotUnique(Number(other))
  }
}

/** The parent-to-be `parentId` as a class hook sees it (`ctx.parent`); refuses a parent class `cls` does not accept, or a cycle. */
function checkParent(ctx: ResourceContext, parentId: number, cls: string, movingId?: number): ResourceRef {
  const { db } = ctx
  const parent = getRow(db, parentId)
  if (!parent) throw hierarchyError(`Parent resource id = ${parentId} was not found.`)
  if (!ctx.classes.get(cls).acceptsParent(parent.cls)) {
    throw hierarchyError(`Resource of type '${cls}' can't be a child of a resource of type '${parent.cls}'.`)
  }
  if (movingId !== undefined) {
    // Walk up from the new parent: meeting the moved resource would make a cycle.
    for (let p: number | null = parentId; p !== null;) {
      if (p === movingId) throw hierarchyError('A resource cannot be moved into itself or into one of its descendants.')
      p = (db.selectValue(`SELECT parent_id FROM resource WHERE id = ?`, [p]) as number | null | undefined) ?? null
    }
  }
  return refOf(parent)
}

function nullableStr(v: unknown, path: string): string | null {
  return expectKind<string | null>('str', v, path, true)
}

function displayNameOf(v: unknown): string {
  const s = expectKind<string>('str', v, '$.resource.display_name').trim()
  if (!s) throw validationError('Display name must not be empty - at `$.resource.display_name`')
  return s
}

function keynameOf(v: unknown): string | null {
  const s = nullableStr(v, '$.resource.keyname')
  return s === null || s.trim() === '' ? null : s.trim()
}

/** Notes a change for the journal; `writeTree` writes it with the change. */
function journal(ctx: ResourceContext, resourceId: number, action: string, payload: unknown): void {
  // A context without a list is a read's: a change there is a bug, never a silently lost entry.
  if (!ctx.journal) throw new Error('A change of the tree outside writeTree: its journal entry has nowhere to go.')
  ctx.journal.push({ tstamp: ctx.now.toISOString(), userId: ctx.user.id, resourceId, action, payload })
}

/**
 * Checks the `resource` member of a create body against the tree (class, parent, names)
 * without writing: a create that will fail is refused before any long preparation.
 */
export function checkCreate(ctx: ResourceContext, body: Record<string, unknown>) {
  const r = expectObject(body.resource, '$.resource')
  const clsName = expectKind<string>('str', r.cls, '$.resource.cls')
  const cls = ctx.classes.find(clsName)
  if (!cls) throw unknownClass(clsName)
  if (r.parent === undefined) throw validationError('Object missing required field `parent` - at `$.resource`')
  const parentId = expectRef(r.parent, '$.resource.parent')
  if (r.display_name === undefined) throw validationError('Object missing required field `display_name` - at `$.resource`')
  const displayName = displayNameOf(r.display_name)
  const keyname = r.keyname === undefined ? null : keynameOf(r.keyname)
  const description = r.description === undefined ? null : nullableStr(r.description, '$.resource.description')
  const permissions = r.permissions === undefined ? '[]' : permissionsInput(ctx.db, ctx.classes, r.permissions)
  const parent = checkParent(ctx, parentId, cls.identity)
  // A create needs `resource.create` on the new resource (through the parent's propagating
  // rules) and `manage_children` on the parent (reference ngw-services §5.4).
  if (ctx.acl && !ctx.acl.canCreate(ctx.db, ctx.user, parentId, cls.identity)) throw createForbidden(cls.identity)
  requirePermission(ctx, parentId, 'resource', 'manage_children')
  checkNames(ctx.db, -1, parentId, displayName, keyname)
  return { cls, parentId, parent, displayName, keyname, description, permissions }
}

/**
 * Creates a resource from a composite body; returns its id and parent id. The id is the one
 * `ctx.prepared` reserved, if it did.
 */
export function createResource(ctx: ResourceContext, body: Record<string, unknown>): { id: number; parent: { id: number } } {
  const db = ctx.db
  const { cls, parentId, parent, displayName, keyname, description, permissions } = checkCreate(ctx, body)
  guardTree(() => db.exec({ sql: `INSERT INTO resource (id, cls, parent_id, keyname, display_name, description, owner_user_id, creation_date, permissions)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    bind: [ctx.prepared?.resourceId ?? null, cls.identity, parentId, keyname, displayName, description, ctx.user.id,
      naiveIso(ctx.now), permissions] }))
  const id = Number(db.selectValue('SELECT last_insert_rowid()'))
  const data = cls.create({ ...ctx, parent }, id, pickMembers(body, cls.members))
  db.exec({ sql: `UPDATE resource SET data = ? WHERE id = ?`, bind: [JSON.stringify(data), id] })
  if (body.resmeta !== undefined) applyResmeta(db, id, body.resmeta)
  journal(ctx, id, 'resource.create', { cls: cls.identity, parent: parentId, display_name: displayName })
  return { id, parent: { id: parentId } }
}

export function pickMembers(body: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((n) => [n, body[n]]))
}

/**
 * Applies a partial composite body to resource `id`: rename, move, class members, resmeta.
 * `false` when there is no such resource (nothing is changed then).
 */
export function updateResource(ctx: ResourceContext, id: number, body: Record<string, unknown>): boolean {
  const db = ctx.db
  const row = getRow(db, id)
  if (!row) return false
  const cls = ctx.classes.get(row.cls)
  let { parent_id: parentId, display_name: displayName, keyname, description } = row
  let { owner_user_id: owner, permissions } = row
  let parent: ResourceRef | undefined
  if (body.resource !== undefined) {
    const r = expectObject(body.resource, '$.resource')
    if (r.cls !== undefined && ctx.classes.find(expectKind<string>('str', r.cls, '$.resource.cls'))?.identity !== cls.identity) {
      throw validationError('The class of an existing resource cannot be changed - at `$.resource.cls`')
    }
    if (r.id !== undefined && r.id !== id) throw validationError('Resource id cannot be changed - at `$.resource.id`')
    if (r.parent !== undefined) {
      const next = r.parent === null ? null : expectRef(r.parent, '$.resource.parent')
      if (next !== parentId) {
        if (id === ROOT_ID || next === null) throw hierarchyError('The root resource cannot be moved, and every other resource needs a parent.')
        parent = checkParent(ctx, next, cls.identity, id)
        // A move needs `manage_children` on the old and the new parent (§5.4).
        requirePermission(ctx, parentId!, 'resource', 'manage_children')
        requirePermission(ctx, next, 'resource', 'manage_children')
        parentId = next
      }
    }
    if (r.display_name !== undefined) displayName = displayNameOf(r.display_name)
    if (r.keyname !== undefined) keyname = keynameOf(r.keyname)
    if (r.description !== undefined) description = nullableStr(r.description, '$.resource.description')
    if (r.permissions !== undefined) {
      const next = permissionsInput(ctx.db, ctx.classes, r.permissions)
      // A client putting back the rules it read changes nothing and needs nothing more.
      if (next !== JSON.stringify(JSON.parse(permissions))) requirePermission(ctx, id, 'resource', 'change_permissions')
      permissions = next
    }
    if (r.owner_user !== undefined) {
      owner = expectRef(r.owner_user, '$.resource.owner_user')
      if (!db.selectValue(`SELECT 1 FROM principal WHERE id = ? AND cls = 'U'`, [owner])) {
        throw validationError(`User id = ${owner} was not found - at \`$.resource.owner_user.id\``)
      }
    }
  }
  checkNames(db, id, parentId, displayName, keyname)
  if (!parent && parentId !== null) parent = refOf(getRow(db, parentId)!)
  const data = cls.update({ ...ctx, parent }, id, pickMembers(body, cls.members), JSON.parse(row.data) as ClassData)
  guardTree(() => db.exec({ sql: `UPDATE resource SET parent_id = ?, display_name = ?, keyname = ?, description = ?, owner_user_id = ?,
      permissions = ?, data = ? WHERE id = ?`,
    bind: [parentId, displayName, keyname, description, owner, permissions, JSON.stringify(data), id] }))
  if (body.resmeta !== undefined) applyResmeta(db, id, body.resmeta)
  journal(ctx, id, parentId !== row.parent_id ? 'resource.move' : 'resource.update',
    { parent: parentId, display_name: displayName })
  return true
}

/** Ids of `id` and everything below it, deepest last. */
export function subtreeIds(db: SqlDb, id: number): number[] {
  return (db.selectValues(`WITH RECURSIVE t(id) AS (SELECT ? UNION ALL SELECT r.id FROM resource r JOIN t ON r.parent_id = t.id)
      SELECT id FROM t`, [id]) as number[]).map(Number)
}

/**
 * Deletes resource `id` and, recursively, its children, inside the caller's write. Returns
 * what the classes' delete hooks left for after the commit (see `runAfterCommit`), or
 * `undefined` when there is no such resource.
 */
export function deleteResource(ctx: ResourceContext, id: number): AfterCommit[] | undefined {
  if (id === ROOT_ID) throw rootDeleteError()
  if (!getRow(ctx.db, id)) return undefined
  const ids = subtreeIds(ctx.db, id)
  const after: AfterCommit[] = []
  for (const i of ids) {
    const r = getRow(ctx.db, i)!
    const action = ctx.classes.get(r.cls).remove?.(ctx, r.id, JSON.parse(r.data) as ClassData)
    if (action) after.push(action)
  }
  guardTree(() => ctx.db.exec({ sql: `DELETE FROM resource WHERE id IN (${ids.map(() => '?').join(',')})`, bind: ids }))
  journal(ctx, id, 'resource.delete', { ids })
  return after
}

/**
 * Runs the after-commit actions of a delete. The resource is gone already, so a failing
 * action is logged, not answered: what it left behind is swept later.
 */
export async function runAfterCommit(actions: AfterCommit[], log: (message: string, err?: unknown) => void): Promise<void> {
  for (const action of actions) await action().catch((err: unknown) => log('An after-delete action failed', err))
}
