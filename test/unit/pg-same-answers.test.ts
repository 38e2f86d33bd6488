/**
 * The PostgreSQL repositories of the tree, the ACL reads and the field lists answer as the
 * SQLite ones, byte for byte (issue 23): the same writes on both ports, then every read compared
 * as JSON text. The data has what engines differ on: upper case before lower (SQLite's BINARY
 * order, not a locale's), non-ASCII and control characters and quotes in texts (JSON escapes),
 * NULLs, resmeta of every type, ids given and taken.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { afterAll, describe, expect, it } from 'vitest'
import { Database } from '../../sw/store/database.ts'
import { migrateMain } from '../../sw/sqlite/migrate.ts'
import { MemoryStore } from '../../sw/store/memory.ts'
import { openSqlitePort } from '../../sw/sqlite/port.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { openPostgresData } from '../../sw/postgres/port.ts'
import type { DataPort, MainRead, MainWrite } from '../../sw/port/port.ts'
import type { NewResource, ResourceSearch } from '../../sw/resource/repository.ts'
import type { NewField } from '../../sw/port/features.ts'
import { cluster } from '../pg/shared.ts'

const asyncLocal = new AsyncLocalStorage<unknown>()
const ports: DataPort[] = []
afterAll(async () => { for (const p of ports) await p.close() })

/**
 * A database whose default collation is a language's (ICU en-US: 'a' < 'B' < 'Z'), as a team's
 * server often has, not the test cluster's C.UTF-8 (code point order, SQLite's): the orders must
 * still be SQLite's. PostGIS as in every database of ours.
 */
async function localeDatabase(): Promise<string> {
  const c = await cluster()
  const admin = await c.client()
  try {
    await admin.query(`CREATE DATABASE same_icu TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`)
  } finally { await admin.end() }
  const db = await c.client('same_icu')
  try {
    expect((await db.query(`SELECT string_agg(x, '' ORDER BY x) AS s FROM unnest(ARRAY['B', 'a', 'Z']) x`)).rows[0].s).toBe('aBZ')
    await db.query('CREATE EXTENSION postgis')
  } finally { await db.end() }
  return c.url('same_icu')
}

async function bothPorts(): Promise<[DataPort, DataPort]> {
  const main = await Database.open(await createSqliteLoader()(), new MemoryStore(), 'main', migrateMain)
  const sqlite = openSqlitePort({ main, store: new MemoryStore(), asyncContext: () => asyncLocal as AsyncLocalStorage<never> })
  const pg = await openPostgresData(await localeDatabase(), { asyncContext: () => asyncLocal as AsyncLocalStorage<never> })
  ports.push(sqlite, pg)
  return [sqlite, pg]
}

const RULE = { action: 'allow', principal: { id: 7 }, identity: '', scope: 'resource', permission: 'read', propagate: true }
const DENY = { action: 'deny', principal: { id: 8 }, identity: 'x', scope: 'data', permission: 'write', propagate: false }
const ODD = 'line\nbreak "quoted" \\ tab\t bell\u0007 ü € 😀 </script>'

const row = (id: number | undefined, parentId: number | null, displayName: string, more: Partial<NewResource> = {}): NewResource => ({
  id, cls: 'resource_group', parentId, keyname: null, displayName, description: null, ownerUserId: 4,
  creationDate: '2026-01-01T00:00:00', permissions: '[]', ...more,
})
const field = (keyname: string, more: Partial<NewField> = {}): NewField => ({ keyname, display_name: keyname, datatype: 'STRING',
  label_field: false, grid_visibility: true, text_search: true, lookup_table: null, ...more })

async function fill(tx: MainWrite): Promise<void> {
  await tx.resources.insert(row(0, null, 'Root', { permissions: JSON.stringify([RULE]) }))
  await tx.resources.insert(row(1, 0, 'a', { keyname: 'Key-A', description: ODD, creationDate: '2026-03-01T10:00:00' }))
  await tx.resources.insert(row(2, 1, 'B', { ownerUserId: 2, permissions: JSON.stringify([DENY, RULE]) }))
  await tx.resources.insert(row(3, 0, 'ä', { cls: 'vector_layer', keyname: 'key_b' }))
  await tx.resources.insert(row(undefined, 0, 'Z%_', { description: '' }))
  await tx.resources.insert(row(undefined, 3, ODD, { cls: 'vector_layer', creationDate: '2025-12-31T23:59:59' }))
  await tx.resources.setData(3, { versioning: { epoch: 3 }, text: ODD })
  await tx.resources.setResmeta(3, { Zeta: 'x', alpha: 1.5, Ä: true, b: null, s: ODD, n: -2 })
  await tx.resources.setResmeta(1, { s: 'Ümlaut', n: 2 })
  const first = await tx.resources.reserveIds(2)
  await tx.resources.insert(row(first + 1, 1, 'reserved'))
  await tx.resources.update(2, { parentId: 0, permissions: JSON.stringify([RULE]) })
  await tx.fields.insert(3, 0, field('b', { display_name: ODD, datatype: 'INTEGER', label_field: true }))
  await tx.fields.insert(3, 1, field('B', { display_name: 'B', lookup_table: 2 }))
  await tx.fields.insert(3, 2, field('A', { display_name: 'B', grid_visibility: false, text_search: false }))
  await tx.fields.insert(3, 3, field('A', { id: 40 }))
}

const SEARCHES: ResourceSearch[] = (() => {
  const base = { columns: [], resmeta: [], roots: [] }
  const name = [{ key: 'name' as const, desc: false }]
  return [
    { ...base, order: name }, { ...base, order: [{ key: 'name', desc: true }] },
    { ...base, order: [{ key: 'type', desc: false }, { key: 'created', desc: true }] },
    { ...base, order: [{ key: 'owner', desc: true }], page: { limit: 2, offset: 1 } },
    { ...base, order: name, page: { limit: null, offset: 2 } },
    { ...base, order: name, columns: [{ column: 'display_name', op: 'like', value: 'Z\\%%' }] },
    { ...base, order: name, columns: [{ column: 'display_name', op: 'like', value: 'Z%\\_' }] },
    { ...base, order: name, columns: [{ column: 'keyname', op: 'ilike', value: 'KEY_%' }] },
    { ...base, order: name, columns: [{ column: 'id', op: 'like', value: '%1%' }] },
    { ...base, order: name, columns: [{ column: 'cls', op: 'in', value: ['vector_layer', 'x'] }, { column: 'parent_id', op: 'eq', value: 0 }] },
    { ...base, order: name, columns: [{ column: 'owner_user_id', op: 'in', value: [2, 4] }] },
    { ...base, order: name, resmeta: [{ key: 's', op: 'ilike', value: '%ÜMLAUT' }] },
    { ...base, order: name, resmeta: [{ key: 's', op: 'like', value: 'line%' }, { key: 'n', op: 'has' }] },
    { ...base, order: name, resmeta: [{ key: 'alpha', op: 'eq', value: 1.5 }, { key: 'b', op: 'eq', value: null }] },
    { ...base, order: name, resmeta: [{ key: 'Ä', op: 'has_not' }], roots: [1] },
  ]
})()

/** `fn` of each item, one after another (one connection answers one query at a time). */
async function each<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (const item of items) out.push(await fn(item))
  return out
}

/** Every read of the three repositories, as one JSON text (Maps as entry lists). */
async function answers(tx: MainRead): Promise<string> {
  const classes = new Map([['resource_group', { identity: 'resource_group', tail: ',"interfaces":[],"scopes":["resource"]' }],
    ['vector_layer', { identity: 'vector_layer', tail: ',"interfaces":["IFeatureLayer"],"scopes":["data","resource"]' }]])
  const ids = (await tx.resources.subtree(0)).sort((x, y) => x - y)
  const out: Record<string, unknown> = {
    rows: await each(ids, (id) => tx.resources.get(id)),
    refs: await tx.resources.refs([...ids].reverse()),
    children: await tx.resources.children(0),
    names: [...(await tx.resources.names(ids)).entries()].sort(),
    paths: await each(ids, (id) => tx.resources.path(id)),
    ofClass: await tx.resources.ofClass('vector_layer'),
    resmeta: [await tx.resources.resmeta(3), await tx.resources.resmeta(1)],
    max: await tx.resources.maxDataNumber('versioning.epoch'),
    taken: [await tx.resources.nameTaken({ keyname: 'Key-A', exceptId: -1 }), await tx.resources.nameTaken({ keyname: 'key-a', exceptId: -1 })],
    searches: await each(SEARCHES, (q) => tx.resources.search(q)),
    page: await tx.resources.page({ ids: [...ids].reverse(), classes, full: true, members: new Map([[3, '"vector_layer":{"n":1}']]) }),
    pageShort: await tx.resources.page({ ids: [2, 0, 2], classes, full: false }),
    bytes: [...await tx.resources.pageBytes({ ids: [3, 1], classes, full: true })],
    acl: [await tx.acl.token(), await tx.acl.changes(0), await tx.acl.chain(2), await tx.acl.chain(5), await tx.acl.allowRules()],
    fields: [...(await tx.fields.list([3, 1])).entries()],
    duplicate: await tx.fields.duplicate(3),
    nextIdx: await tx.fields.nextIdx(3),
  }
  return JSON.stringify(out)
}

describe('PostgreSQL and SQLite answer alike', () => {
  it('the same writes give the same rows, orders, pages, ACL reads and field lists, byte for byte', async () => {
    const [sqlite, pg] = await bothPorts()
    for (const port of [sqlite, pg]) await port.unitOfWork(fill)
    const [a, b] = [await sqlite.read(answers), await pg.read(answers)]
    expect(JSON.parse(b)).toEqual(JSON.parse(a))
    expect(b).toBe(a)
    // The next ids are the same too.
    const next = (port: DataPort) => port.unitOfWork(async (tx) => [await tx.resources.reserveIds(0), await tx.fields.reserveIds(0)])
    expect(await next(pg)).toEqual(await next(sqlite))
  })
})
