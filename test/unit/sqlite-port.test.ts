import { describe, expect, it } from 'vitest'
import { nodePlatform } from '../../sw/host/node.ts'
import { createApp } from '../../sw/app.ts'
import { seedDemo } from '../../sw/demo.ts'
import { openServices } from '../../sw/services.ts'
import { Database } from '../../sw/store/database.ts'
import { MemoryStore } from '../../sw/store/memory.ts'
import { openSqlitePort } from '../../sw/sqlite/port.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { sqliteMain } from '../port/sqlite-main.ts'

const AUTH = { authorization: 'Basic ' + btoa('administrator:pw'), 'content-type': 'application/json' }
const platform = () => nodePlatform({ admin: { password: 'pw', mustChange: false }, log: () => {}, guardUnitsOfWork: true })

/** `p`, or 'hung' if it has not settled within `ms` (a unit of work waiting behind itself). */
const within = <T>(p: Promise<T>, ms = 500) =>
  Promise.race([p.then((v) => ({ v }), (e: unknown) => ({ e })), new Promise((r) => setTimeout(() => r('hung'), ms))])

async function bare(guard: 'node' | 'none' = 'node') {
  const asyncContext = guard === 'node' ? platform().asyncContext : undefined
  const main = await Database.open(await createSqliteLoader()(), new MemoryStore(), 'main', (db) => {
    db.exec('CREATE TABLE IF NOT EXISTS journal (tstamp TEXT, user_id INTEGER, resource_id INTEGER, action TEXT, payload TEXT)')
  })
  return { main, data: openSqlitePort({ main, store: new MemoryStore(), asyncContext }) }
}

describe('the SQLite data port: guards of a unit of work', () => {
  it("a unit of work or read inside another on 'main' fails at once on Node instead of hanging", async () => {
    const { data } = await bare()
    const nestedWrite = await within(data.unitOfWork(async () => data.unitOfWork(async () => 1)))
    expect(nestedWrite).toMatchObject({ e: { message: expect.stringMatching(/^nested unit of work on 'main'/) } })
    const nestedRead = await within(data.unitOfWork(async () => data.read(async () => 1)))
    expect(nestedRead).toMatchObject({ e: { message: expect.stringMatching(/^nested unit of work on 'main'/) } })
    // After them the queue is free, and units of work one after the other are not "nested".
    expect(await data.unitOfWork(async () => 2)).toBe(2)
    expect(await data.read(async () => data.tokens.current('main'))).toMatch(/^\d+:\d+$/)
  })

  it('without async-local storage (the service worker) the same nesting is not detected: the guard is what prevents the hang', async () => {
    const { data } = await bare('none')
    expect(await within(data.unitOfWork(async () => data.unitOfWork(async () => 1)), 300)).toBe('hung')
  })

  it('a tx used after its unit of work settled refuses, and so do its repositories', async () => {
    const { data, main } = await bare()
    let leaked: Parameters<Parameters<typeof data.unitOfWork>[0]>[0] | undefined
    await data.unitOfWork(async (tx) => { leaked = tx })
    expect(() => leaked!.journal).toThrow(/unit of work on 'main' has ended/)
    let journal: typeof leaked extends undefined ? never : NonNullable<typeof leaked>['journal'] | undefined
    await data.unitOfWork(async (tx) => { journal = tx.journal })
    expect(() => journal!.add({ tstamp: 't', userId: 1, resourceId: 1, action: 'x', payload: null })).toThrow(/has ended/)
    expect(await main.read((db) => db.selectValue('SELECT count(*) FROM journal'))).toBe(0)
  })

  it('a unit of work holds every repository of the main data; a read has no journal and no writes', async () => {
    const { data } = await bare()
    expect(await data.unitOfWork(async (tx) => Object.keys(tx).sort())).toEqual(
      ['acl', 'fields', 'files', 'journal', 'lock', 'loginLimits', 'principals', 'requests', 'resources', 'sessions', 'uploads'])
    expect(await data.read(async (tx) => 'journal' in tx || 'record' in tx.requests)).toBe(false)
  })
})

describe('the SQLite data port: tokens', () => {
  it("'main' moves with each saved write, old path or new, and not with a read; an untracked scope is 'closed'", async () => {
    const { data, main } = await bare()
    const t0 = data.tokens.current('main')
    await data.read(async () => undefined)
    expect(data.tokens.current('main')).toBe(t0)
    await data.unitOfWork(async (tx) => tx.journal.add({ tstamp: 't', userId: 1, resourceId: 1, action: 'x', payload: null }))
    const t1 = data.tokens.current('main')
    expect(t1).not.toBe(t0)
    await main.write((db) => db.exec("INSERT INTO journal (action) VALUES ('old path')"))
    expect(data.tokens.current('main')).not.toBe(t1)
    expect(data.tokens.current('layer:5')).toBe('closed')
    const other = await bare()
    data.tokens.track('layer:5', other.main)
    const l0 = data.tokens.current('layer:5')
    expect(l0).not.toBe('closed')
    // Two instances of the same name (a reopen) are told apart by their serial.
    expect(l0.split(':')[0]).not.toBe(data.tokens.current('main').split(':')[0])
    data.tokens.track('layer:5', undefined)
    expect(data.tokens.current('layer:5')).toBe('closed')
  })
})

describe("the app's data port tracks the catalogue", () => {
  it("'catalogue' is 'closed' until the catalogue opens, then moves with each import and not with a read", async () => {
    const app = createApp(platform())
    const services = await app.services()
    expect(services.data.tokens.current('catalogue')).toBe('closed')
    const catalogue = await services.catalogue()
    const t0 = services.data.tokens.current('catalogue')
    expect(t0).not.toBe('closed')
    expect((await app.fetch(new Request('http://host/api/v1/geoservices/'))).status).toBe(200)
    expect(services.data.tokens.current('catalogue')).toBe(t0)
    await catalogue.import({ geoservices: [] })
    expect(services.data.tokens.current('catalogue')).not.toBe(t0)
  })
})

describe('the tree writes through the data port', () => {
  const journal = (services: Awaited<ReturnType<typeof openServices>>) =>
    sqliteMain(services).read((db) => db.selectObjects('SELECT user_id, resource_id, action, payload FROM journal ORDER BY rowid'))

  it('a create, a change, a move and a delete each journal one entry with their change; a refused create journals nothing', async () => {
    const app = createApp(platform())
    const services = await app.services()
    const post = (body: unknown) => app.fetch(new Request('http://host/api/resource/', { method: 'POST', headers: AUTH, body: JSON.stringify(body) }))
    const a = await (await post({ resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'A' } })).json()
    const b = await (await post({ resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'B' } })).json()
    expect((await post({ resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'A' } })).status).toBe(422)
    const put = (id: number, body: unknown) => app.fetch(new Request(`http://host/api/resource/${id}`, { method: 'PUT', headers: AUTH, body: JSON.stringify(body) }))
    expect((await put(a.id, { resource: { display_name: 'A2' } })).status).toBe(200)
    expect((await put(b.id, { resource: { parent: { id: a.id } } })).status).toBe(200)
    expect((await app.fetch(new Request(`http://host/api/resource/${a.id}`, { method: 'DELETE', headers: AUTH }))).status).toBe(200)
    expect((await journal(services)).map((e) => [e.resource_id, e.action])).toEqual([
      [a.id, 'resource.create'], [b.id, 'resource.create'], [a.id, 'resource.update'], [b.id, 'resource.move'], [a.id, 'resource.delete'],
    ])
    expect(JSON.parse(String((await journal(services))[0]!.payload))).toEqual({ cls: 'resource_group', parent: 0, display_name: 'A' })
  })

  it('the demo data set is created in one unit of work, journalled', async () => {
    const services = await openServices(platform())
    await seedDemo(services)
    const entries = await journal(services)
    expect(entries.map((e) => e.action)).toEqual(Array(4).fill('resource.create'))
    expect(entries.every((e) => e.user_id === 4)).toBe(true)
  })
})
