/**
 * @module resource/service
 * The resource tree: create, read, change, move, delete, list and search. Every function
 * works inside the caller's read or unit of work (`ctx.tx`, the data port's repositories);
 * writes throw `ApiError` before anything is left half-done (the unit of work rolls back).
 */
import { insufficientPermissions, validationError } from '../core/error.ts'
import type { AclEvaluator } from '../auth/acl.ts'
import { expectKind, expectObject, expectRef } from '../core/validate.ts'
import type { AfterCommit, ClassContext, ClassData, ClassLookup, WriteContext } from './class.ts'
import { createForbidden, displayNameNotUnique, hierarchyError, keynameNotUnique, rootDeleteError, unknownClass } from './errors.ts'
import type { ResourceRef, ResourceRow } from './types.ts'
import { resmetaInput } from './resmeta.ts'
import { permissionsInput } from './acl-input.ts'
import type { JournalEntry, PageQuery } from './repository.ts'
import { refOf } from './refs.ts'
import type { Awaitable, DataPort, MainRead, MainWrite } from '../port/port.ts'
import type { Identifiers } from '../core/identifiers.ts'

/** What the tree's functions get: the main data inside a read or unit of work, and the classes. */
export interface ResourceContext extends ClassContext {
  classes: ClassLookup
  /** The permission evaluator; without it (the demo's seeding) nothing is checked. */
  acl?: AclEvaluator
  /** The journal entries of a write, written by `writeTree` before its commit; absent in a read. */
  journal?: JournalEntry[]
  /** How answers spell class names and members (core/identifiers); the spec's without it. */
  names?: Pick<Identifiers, 'name' | 'members'>
}

/** A tree context inside a unit of work: what a change needs. */
export interface TreeWriteContext extends ResourceContext, WriteContext {
  tx: MainWrite
  journal: JournalEntry[]
}

/** Who asks, and the tree's services: what a context is made of besides the transaction. */
export type TreeBase = Omit<ResourceContext, 'tx' | 'journal'>

/** A read context over `tx`. */
export const readContext = (base: TreeBase, tx: MainRead): ResourceContext => ({ ...base, tx })

/** Runs `fn` in one read of the data port with a tree context over it. */
export function readTree<T>(data: DataPort, base: TreeBase, fn: (ctx: ResourceContext) => Awaitable<T>): Promise<T> {
  return data.read(async (tx) => fn(readContext(base, tx)))
}

/**
 * Runs `fn` in one unit of work of the data port with a tree context over it; the journal
 * entries `fn` noted are written in the same unit of work. Each run of `fn` gets a fresh
 * context, since the port may run it twice.
 */
export function writeTree<T>(data: DataPort, base: TreeBase, fn: (ctx: TreeWriteContext) => Awaitable<T>): Promise<T> {
  return data.unitOfWork(async (tx) => {
    const ctx: TreeWriteContext = { ...base, tx, journal: [] }
    const out = await fn(ctx)
    for (const e of ctx.journal) await tx.journal.add(e)
    return out
  })
}

/** 403 InsufficientPermissions unless the context's user has `scope.permission` on resource `id`. */
export async function requirePermission(ctx: ResourceContext, id: number, scope: string, permission: string): Promise<void> {
  if (ctx.acl && await ctx.acl.check(ctx.tx.acl, ctx.user, id, scope, permission) === false) throw insufficientPermissions(permission, scope, id)
}

export const ROOT_ID = 0

/** Naive ISO datetime without fractions, as the original writes `creation_date`. */
export const naiveIso = (d: Date) => d.toISOString().slice(0, 19)

/** Creates the root on a fresh database: a resource group, as in every NextGIS Web tree. */
export async function provisionRoot(data: DataPort, now: Date): Promise<void> {
  if (await data.read((tx) => tx.resources.get(ROOT_ID))) return
  await data.unitOfWork(async (tx) => {
    // The original's root ACL (reference ngw-services §5.3): administrators may do everything,
    // signed-in users may read the root; principals by keyname, never by a hard-coded id.
    const idOf = async (keyname: string) => (await tx.principals.idOf(keyname))!
    const acl = [
      { action: 'allow', principal: { id: await idOf('administrators') }, identity: '', scope: '', permission: '', propagate: true },
      { action: 'allow', principal: { id: await idOf('authenticated') }, identity: '', scope: 'resource', permission: 'read', propagate: false },
    ]
    await tx.resources.insert({ id: ROOT_ID, cls: 'resource_group', parentId: null, keyname: null, displayName: 'Main resource group',
      description: null, ownerUserId: await idOf('administrator'), creationDate: naiveIso(now), permissions: JSON.stringify(acl) })
  })
}

/** The largest number at `path` (dotted) in any resource's class data; 0 when there is none (vector_layer's legacy caller). */

/** What a page's serializer needs of a row: the rest is read by its query. */
export type PageRow = Pick<ResourceRow, 'id' | 'cls'>

/**
 * The composite object of one resource (`resource`, `resmeta`, `social` and the class's
 * members) as JSON text, keys in the original's order (reference §4.1).
 */
export async function serialize(ctx: ResourceContext, row: PageRow, full = true): Promise<string> {
  return (await serializeRows(ctx, [row], full)).slice(1, -1)
}

/**
 * The composite objects of a page of rows (a listing, a search), in their order, as one JSON
 * array text that storage builds in one query (`ResourceRead.page`): the tree's facts, the
 * metadata and the rules go from the database to the answer without being parsed and
 * stringified again in JavaScript. Only the class members are made here, by class
 * (`serializeMany` where a class has it), and spliced in as text; a class without members (a
 * group) has none to make. A listing of 10,000 children made 30,000 queries once, then built
 * 5,000 objects (~30 ms).
 */
export async function serializeRows(ctx: ResourceContext, rows: readonly PageRow[], full = true): Promise<string> {
  return rows.length ? ctx.tx.resources.page(await pageOf(ctx, rows, full)) : '[]'
}

/**
 * `serializeRows` as the UTF-8 bytes storage wrote, for an answer that is only sent on: a page of
 * 5,000 children is ~1.8 MB, and making a JavaScript string of it out of WASM memory (~6 ms), then
 * encoding that string again for the answer's body, cost more than copying the bytes.
 */
export async function serializeRowsBytes(ctx: ResourceContext, rows: readonly PageRow[], full = true): Promise<Uint8Array<ArrayBuffer>> {
  return ctx.tx.resources.pageBytes(await pageOf(ctx, rows, full))
}

/** What storage needs to write a page (`PageQuery`): the classes' constant parts and the members' text. */
async function pageOf(ctx: ResourceContext, rows: readonly PageRow[], full: boolean): Promise<PageQuery> {
  const classes = new Map<string, { identity: string; tail: string }>()
  const byCls = new Map<string, number[]>()
  for (const row of rows) {
    const cls = ctx.classes.get(row.cls)
    if (!classes.has(row.cls)) {
      classes.set(row.cls, { identity: ctx.names?.name(cls.identity) ?? cls.identity, tail: `,"interfaces":${JSON.stringify(cls.interfaces)},"scopes":${JSON.stringify(cls.scopes)}` })
    }
    if (!full || cls.members.length === 0) continue
    let at = byCls.get(row.cls)
    if (!at) byCls.set(row.cls, at = [])
    at.push(row.id)
  }
  // The class members by id, as the inside of an object's text (`"a":1,"b":2`).
  const members = new Map<number, string>()
  for (const [clsName, at] of byCls) {
    const cls = ctx.classes.get(clsName)
    const items = (await ctx.tx.resources.refs(at)).map((r) => ({ id: r.id, data: r.data }))
    const made = cls.serializeMany ? await cls.serializeMany(ctx, items) : await Promise.all(items.map((it) => cls.serialize(ctx, it.id, it.data)))
    items.forEach((it, k) => {
      const text = JSON.stringify(ctx.names ? ctx.names.members(made[k]!) : made[k]).slice(1, -1)
      if (text) members.set(it.id, text)
    })
  }
  return { ids: rows.map((r) => r.id), classes, full, members }
}

/**
 * Children of `parentId`, unordered (`sortRows` gives the original's order: a listing sorts only
 * the children it shows). Only what the ACL filter needs; the names are read for the children
 * shown only (`sortRows`).
 */
export function children(ctx: ResourceContext, parentId: number): Promise<PageRow[]> {
  return ctx.tx.resources.children(parentId)
}

/** `localeCompare` without arguments is this collator's compare (ECMA-402), made once, not per call. */
const byName = new Intl.Collator().compare

/** `rows` in the original's order of children: class order, then display name (read here, in one query). */
export async function sortRows<T extends PageRow>(ctx: ResourceContext, rows: T[]): Promise<T[]> {
  const names = await ctx.tx.resources.names(rows.map((r) => r.id))
  const order = (r: PageRow) => ctx.classes.get(r.cls).order
  return rows.sort((a, b) => order(a) - order(b) || byName(names.get(a.id)!, names.get(b.id)!) || a.id - b.id)
}

async function checkNames(tx: MainRead, id: number, parentId: number | null, displayName: string, keyname: string | null): Promise<void> {
  if (keyname !== null) {
    const other = await tx.resources.nameTaken({ keyname, exceptId: id })
    if (other !== undefined) throw keynameNotUnique(other)
  }
  if (parentId !== null) {
    const other = await tx.resources.nameTaken({ parentId, displayName, exceptId: id })
    if (other !== undefined) throw displayNameNotUnique(other)
  }
}

/** The parent-to-be `parentId` as a class hook sees it (`ctx.parent`); refuses a parent class `cls` does not accept, or a cycle. */
async function checkParent(ctx: ResourceContext, parentId: number, cls: string, movingId?: number): Promise<ResourceRef> {
  const parent = await ctx.tx.resources.get(parentId)
  if (!parent) throw hierarchyError(`Parent resource id = ${parentId} was not found.`)
  if (!ctx.classes.get(cls).acceptsParent(parent.cls)) {
    throw hierarchyError(`Resource of type '${cls}' can't be a child of a resource of type '${parent.cls}'.`)
  }
  if (movingId !== undefined) {
    // Walk up from the new parent: meeting the moved resource would make a cycle.
    for (let p: number | null = parentId; p !== null;) {
      if (p === movingId) throw hierarchyError('A resource cannot be moved into itself or into one of its descendants.')
      p = (await ctx.tx.resources.parentOf(p)) ?? null
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
function journal(ctx: TreeWriteContext, resourceId: number, action: string, payload: unknown): void {
  ctx.journal.push({ tstamp: ctx.now.toISOString(), userId: ctx.user.id, resourceId, action, payload })
}

/** Sets the resmeta sent (`member`, validated first), if any. */
async function applyResmeta(ctx: TreeWriteContext, id: number, member: unknown): Promise<void> {
  if (member === undefined) return
  const items = resmetaInput(member)
  if (items) await ctx.tx.resources.setResmeta(id, items)
}

/**
 * Checks the `resource` member of a create body against the tree (class, parent, names)
 * without writing: a create that will fail is refused before any long preparation.
 */
export async function checkCreate(ctx: ResourceContext, body: Record<string, unknown>) {
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
  const permissions = r.permissions === undefined ? '[]' : await permissionsInput(ctx.tx.principals, ctx.classes, r.permissions)
  const parent = await checkParent(ctx, parentId, cls.identity)
  // A create needs `resource.create` on the new resource (through the parent's propagating
  // rules) and `manage_children` on the parent (reference ngw-services §5.4).
  if (ctx.acl && !await ctx.acl.canCreate(ctx.tx.acl, ctx.user, parentId, cls.identity)) throw createForbidden(cls.identity)
  await requirePermission(ctx, parentId, 'resource', 'manage_children')
  await checkNames(ctx.tx, -1, parentId, displayName, keyname)
  return { cls, parentId, parent, displayName, keyname, description, permissions }
}

/**
 * Creates a resource from a composite body; returns its id and parent id. The id is the one
 * `ctx.prepared` reserved, if it did.
 */
export async function createResource(ctx: TreeWriteContext, body: Record<string, unknown>): Promise<{ id: number; parent: { id: number } }> {
  const { cls, parentId, parent, displayName, keyname, description, permissions } = await checkCreate(ctx, body)
  const id = await ctx.tx.resources.insert({ id: ctx.prepared?.resourceId, cls: cls.identity, parentId, keyname, displayName, description,
    ownerUserId: ctx.user.id, creationDate: naiveIso(ctx.now), permissions })
  const data = await cls.create({ ...ctx, parent }, id, pickMembers(body, cls.members))
  await ctx.tx.resources.setData(id, data)
  await applyResmeta(ctx, id, body.resmeta)
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
export async function updateResource(ctx: TreeWriteContext, id: number, body: Record<string, unknown>): Promise<boolean> {
  const { tx } = ctx
  const row = await tx.resources.get(id)
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
        parent = await checkParent(ctx, next, cls.identity, id)
        // A move needs `manage_children` on the old and the new parent (§5.4).
        await requirePermission(ctx, parentId!, 'resource', 'manage_children')
        await requirePermission(ctx, next, 'resource', 'manage_children')
        parentId = next
      }
    }
    if (r.display_name !== undefined) displayName = displayNameOf(r.display_name)
    if (r.keyname !== undefined) keyname = keynameOf(r.keyname)
    if (r.description !== undefined) description = nullableStr(r.description, '$.resource.description')
    if (r.permissions !== undefined) {
      const next = await permissionsInput(tx.principals, ctx.classes, r.permissions)
      // A client putting back the rules it read changes nothing and needs nothing more.
      if (next !== JSON.stringify(JSON.parse(permissions))) await requirePermission(ctx, id, 'resource', 'change_permissions')
      permissions = next
    }
    if (r.owner_user !== undefined) {
      owner = expectRef(r.owner_user, '$.resource.owner_user')
      if (!await tx.principals.row(owner, 'U')) {
        throw validationError(`User id = ${owner} was not found - at \`$.resource.owner_user.id\``)
      }
    }
  }
  await checkNames(tx, id, parentId, displayName, keyname)
  if (!parent && parentId !== null) parent = refOf((await tx.resources.get(parentId))!)
  const data = await cls.update({ ...ctx, parent }, id, pickMembers(body, cls.members), JSON.parse(row.data) as ClassData)
  // Every column, as one statement: the tree's triggers see one change (and bump the ACL token once, as always).
  await tx.resources.update(id, { parentId: parentId ?? undefined, displayName, keyname, description, ownerUserId: owner, permissions, data })
  await applyResmeta(ctx, id, body.resmeta)
  journal(ctx, id, parentId !== row.parent_id ? 'resource.move' : 'resource.update',
    { parent: parentId, display_name: displayName })
  return true
}

/** Ids of `id` and everything below it, deepest last. */
export function subtreeIds(ctx: ResourceContext, id: number): Promise<number[]> {
  return ctx.tx.resources.subtree(id)
}

/**
 * Deletes resource `id` and, recursively, its children, inside the caller's write. Returns
 * what the classes' delete hooks left for after the commit (see `runAfterCommit`), or
 * `undefined` when there is no such resource.
 */
export async function deleteResource(ctx: TreeWriteContext, id: number): Promise<AfterCommit[] | undefined> {
  if (id === ROOT_ID) throw rootDeleteError()
  if (!await ctx.tx.resources.get(id)) return undefined
  const ids = await subtreeIds(ctx, id)
  const after: AfterCommit[] = []
  for (const i of ids) {
    const r = (await ctx.tx.resources.get(i))!
    const action = await ctx.classes.get(r.cls).remove?.(ctx, r.id, JSON.parse(r.data) as ClassData)
    if (action) after.push(action)
  }
  await ctx.tx.resources.delete(ids)
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
