import type { Api, ApiCase, Expect } from '../harness.ts'
import { base64, expectError } from '../harness.ts'
import { createLayer } from './feature.ts'

const V = 'nextgisweb.feature_layer.versioning.exception'
const T = 'nextgisweb.feature_layer.transaction.exception'
const FIELDS = [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }, { keyname: 'day', datatype: 'DATE' }]

/** Little-endian ISO WKB of a 2D point, as base64 (the changes and transaction APIs' geometry). */
export function pointWkb(x: number, y: number): string {
  const b = new Uint8Array(21)
  const v = new DataView(b.buffer)
  b[0] = 1
  v.setUint32(1, 1, true)
  v.setFloat64(5, x, true)
  v.setFloat64(13, y, true)
  return base64(b)
}

export async function versionedLayer(api: Api, expect: Expect, fields: unknown[] = FIELDS) {
  const layer = await createLayer(api, expect, 'POINT', fields, 3857, true)
  const res = (await api.request('GET', `/api/resource/${layer}`)).body
  const fieldIds: Record<string, number> = Object.fromEntries(res.feature_layer.fields.map((f: { keyname: string; id: number }) => [f.keyname, f.id]))
  return { layer, epoch: res.feature_layer.versioning.epoch as number, fieldIds }
}

/** Every operation of the feed from `fetch`, asserting each non-empty page ends with an absolute continue URL. */
export async function fetchAll(api: Api, expect: Expect, fetch: string) {
  const ops: Record<string, unknown>[] = []
  let url = fetch
  for (let pages = 0; pages < 1000; pages++) {
    expect(url).toMatch(/^https?:\/\//)
    const res = await api.request('GET', url.replace(/^https?:\/\/[^/]+/, ''))
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/json')
    const page = res.body as Record<string, unknown>[]
    if (!page.length) return ops
    const last = page[page.length - 1]!
    expect(last.action).toBe('continue')
    ops.push(...page.slice(0, -1))
    url = last.url as string
  }
  throw new Error('the feed did not end')
}

async function check(api: Api, layer: number, query = '') {
  return api.request('GET', `/api/resource/${layer}/feature/changes/check${query}`)
}

async function txn(api: Api, expect: Expect, layer: number, epoch: number, items: unknown[]) {
  const start = await api.request('POST', `/api/resource/${layer}/feature/transaction/`, { body: { epoch } })
  expect(start.status).toBe(200)
  expect(start.body).toEqual({ id: expect.any(Number), started: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/) })
  const tid = start.body.id as number
  const put = await api.request('PUT', `/api/resource/${layer}/feature/transaction/${tid}`, { body: items })
  expect(put.status).toBe(200)
  expect(put.body).toBeNull()
  return tid
}

export const versioningCases: ApiCase[] = [
  {
    name: 'a versioned layer makes one version per write and gives features their vid',
    async run(api, expect) {
      const { layer } = await versionedLayer(api, expect)
      const created = await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 2)', fields: { name: 'a' } } })
      expect(created.body).toEqual({ id: expect.any(Number), version: 2 })
      const batch = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [{ geom: 'POINT(3 4)' }, { geom: 'POINT(5 6)' }] })
      expect(batch.body).toHaveLength(2)
      const put = await api.request('PUT', `/api/resource/${layer}/feature/${created.body.id}`, { body: { fields: { n: 7 } } })
      expect(put.body).toEqual({ id: created.body.id, version: 4 })
      const got = await api.request('GET', `/api/resource/${layer}/feature/${created.body.id}`)
      expect(Object.keys(got.body).slice(0, 2)).toEqual(['id', 'vid'])
      expect(got.body.vid).toBe(4)
      const list = await api.request('GET', `/api/resource/${layer}/feature/?fields=`)
      expect(list.body.map((f: { vid: number }) => f.vid)).toEqual([4, 3, 3])
      const res = await api.request('GET', `/api/resource/${layer}`)
      expect(res.body.feature_layer.versioning).toEqual({ enabled: true, epoch: expect.any(Number), latest: 4 })
      // A PUT that changes nothing of the feature itself (only its description) keeps its vid.
      await api.request('PUT', `/api/resource/${layer}/feature/${created.body.id}`, { body: { extensions: { description: 'd' } } })
      expect((await api.request('GET', `/api/resource/${layer}/feature/${created.body.id}`)).body.vid).toBe(4)
      // The same description again changes nothing: no new version (a pull writes every description it receives).
      const latest = (await api.request('GET', `/api/resource/${layer}`)).body.feature_layer.versioning.latest
      await api.request('PUT', `/api/resource/${layer}/feature/${created.body.id}`, { body: { extensions: { description: 'd' } } })
      expect((await api.request('GET', `/api/resource/${layer}`)).body.feature_layer.versioning.latest).toBe(latest)
    },
  },
  {
    name: 'changes/check and fetch: 204 when current, squashed operations with base64 WKB and [[field id, value]]',
    async run(api, expect) {
      const { layer, epoch, fieldIds } = await versionedLayer(api, expect)
      const first = await check(api, layer)
      expect(first.status).toBe(200)
      expect(first.headers['content-type']).toBe('application/json')
      expect(first.body).toMatchObject({ epoch, initial: 0, target: 1, geometry_type: 'POINT', srs: { id: 3857 },
        fields: [{ id: fieldIds.name, keyname: 'name', datatype: 'STRING' }, { id: fieldIds.n, keyname: 'n', datatype: 'INTEGER' },
          { id: fieldIds.day, keyname: 'day', datatype: 'DATE' }] })
      expect(await fetchAll(api, expect, first.body.fetch)).toEqual([])
      expect((await check(api, layer, `?epoch=${epoch}&initial=1`)).status).toBe(204)

      const made = await api.request('PATCH', `/api/resource/${layer}/feature/?dt_format=iso`, { body: [
        { geom: 'POINT(10 20)', fields: { name: 'keep', n: 1, day: '2024-05-06' } },
        { geom: 'POINT(30 40)', fields: { name: 'change' } },
        { geom: 'POINT(50 60)', fields: { name: 'gone' } }] })
      const [keep, change, gone] = made.body.map((f: { id: number }) => f.id)
      const all = await check(api, layer)
      expect(all.body.target).toBe(2)
      const ops = await fetchAll(api, expect, all.body.fetch)
      expect(ops).toEqual([
        { action: 'feature.create', fid: keep, vid: 2, geom: pointWkb(10, 20), fields: [[fieldIds.name, 'keep'], [fieldIds.n, 1], [fieldIds.day, '2024-05-06']] },
        { action: 'feature.create', fid: change, vid: 2, geom: pointWkb(30, 40), fields: [[fieldIds.name, 'change']] },
        { action: 'feature.create', fid: gone, vid: 2, geom: pointWkb(50, 60), fields: [[fieldIds.name, 'gone']] }])

      await api.request('PUT', `/api/resource/${layer}/feature/${change}`, { body: { fields: { name: 'changed', n: 5 } } })
      await api.request('PUT', `/api/resource/${layer}/feature/${change}`, { body: { geom: 'POINT(31 41)' } })
      await api.request('DELETE', `/api/resource/${layer}/feature/${gone}`)
      const later = await check(api, layer, `?epoch=${epoch}&initial=2`)
      expect(later.body).toMatchObject({ epoch, initial: 2, target: 5 })
      expect(await fetchAll(api, expect, later.body.fetch)).toEqual([
        { action: 'feature.update', fid: change, vid: 4, geom: pointWkb(31, 41), fields: [[fieldIds.name, 'changed'], [fieldIds.n, 5]] },
        { action: 'feature.delete', fid: gone, vid: 5 }])
      // Created and deleted inside the range: nothing to tell.
      const whole = await fetchAll(api, expect, (await check(api, layer)).body.fetch)
      expect(whole.map((o) => o.fid)).toEqual([keep, change])
      // Only up to a target.
      const upTo = await check(api, layer, `?epoch=${epoch}&initial=2&target=3`)
      expect(await fetchAll(api, expect, upTo.body.fetch)).toEqual([
        { action: 'feature.update', fid: change, vid: 3, fields: [[fieldIds.name, 'changed'], [fieldIds.n, 5]] }])
    },
  },
  {
    name: 'the feed is paged by 100 features and ends with an empty page',
    async run(api, expect) {
      const { layer } = await versionedLayer(api, expect)
      await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: Array.from({ length: 250 }, (_, i) => ({ geom: `POINT(${i} ${i})` })) })
      const c = await check(api, layer)
      let url = c.body.fetch as string
      const sizes: number[] = []
      for (;;) {
        const page = (await api.request('GET', url.replace(/^https?:\/\/[^/]+/, ''))).body as { action: string; url?: string }[]
        if (!page.length) break
        sizes.push(page.length - 1)
        url = page[page.length - 1]!.url!
      }
      expect(sizes).toEqual([100, 100, 50])
    },
  },
  {
    name: 'changes errors: epoch required and mismatching, versions out of range, versioning off',
    async run(api, expect) {
      const { layer, epoch } = await versionedLayer(api, expect)
      expectError(expect, await check(api, layer, '?initial=1'), 422, `${V}.FVersioningEpochRequired`)
      expectError(expect, await check(api, layer, `?epoch=${epoch + 1000}&initial=0`), 422, `${V}.FVersioningEpochMismatch`)
      expectError(expect, await check(api, layer, `?epoch=${epoch}&initial=7`), 422, `${V}.FVersioningOutOfRange`)
      expectError(expect, await check(api, layer, `?epoch=${epoch}&initial=0&target=9`), 422, `${V}.FVersioningOutOfRange`)
      const plain = await createLayer(api, expect, 'POINT', FIELDS)
      expectError(expect, await check(api, plain), 422, `${V}.FVersioningNotEnabled`)
      expectError(expect, await api.request('GET', `/api/resource/${plain}/feature/?version=1`), 422, `${V}.FVersioningNotEnabled`)
      const fetch = await api.request('GET', `/api/resource/${layer}/feature/changes/fetch?epoch=${epoch}&initial=0&target=1&cursor=x`)
      expectError(expect, fetch, 422, 'nextgisweb.core.exception.ValidationError')
    },
  },
  {
    name: 'point-in-time reads (?version=) show features, fields and attachments as they were',
    async run(api, expect) {
      const { layer, epoch } = await versionedLayer(api, expect)
      const fid = (await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 1)', fields: { name: 'v2' } } })).body.id
      const other = (await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(2 2)', fields: { name: 'other' } } })).body.id
      await api.request('PUT', `/api/resource/${layer}/feature/${fid}`, { body: { geom: 'POINT(9 9)', fields: { name: 'v4' } } })
      await api.request('DELETE', `/api/resource/${layer}/feature/${other}`)
      const at3 = await api.request('GET', `/api/resource/${layer}/feature/?version=3&epoch=${epoch}`)
      expect(at3.body.map((f: { id: number; vid: number; geom: string; fields: { name: string } }) => [f.id, f.vid, f.geom, f.fields.name]))
        .toEqual([[fid, 2, 'POINT(1 1)', 'v2'], [other, 3, 'POINT(2 2)', 'other']])
      expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}?version=2`)).body).toMatchObject({ id: fid, vid: 2, fields: { name: 'v2' } })
      expect((await api.request('GET', `/api/resource/${layer}/feature/?version=1`)).body).toEqual([])
      const now = await api.request('GET', `/api/resource/${layer}/feature/`)
      expect(now.body.map((f: { id: number; fields: { name: string } }) => [f.id, f.fields.name])).toEqual([[fid, 'v4']])
      const filtered = await api.request('GET', `/api/resource/${layer}/feature/?version=3&fld_name=other&intersects=POLYGON((0 0,3 0,3 3,0 3,0 0))`)
      expect(filtered.body.map((f: { id: number }) => f.id)).toEqual([other])
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/?version=99`), 422, `${V}.FVersioningOutOfRange`)
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/?version=2&epoch=${epoch + 1}`), 422, `${V}.FVersioningEpochMismatch`)
    },
  },
  {
    name: 'batch updates and transaction commits keep each feature\'s old values once per version, whatever else the batch does to it',
    async run(api, expect) {
      const { layer, epoch, fieldIds } = await versionedLayer(api, expect)
      const [a, b, c] = (await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [
        { geom: 'POINT(1 1)', fields: { name: 'a1' } }, { geom: 'POINT(2 2)', fields: { name: 'b1' } }, { geom: 'POINT(3 3)', fields: { name: 'c1' } }] })).body
        .map((f: { id: number }) => f.id)
      // One batch (version 3): a twice, b's geometry, c only its description, a new feature d.
      const batch = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [
        { id: a, fields: { name: 'a2' } }, { id: b, geom: 'POINT(20 20)' }, { id: a, fields: { n: 5 } },
        { id: c, extensions: { description: 'only this' } }, { geom: 'POINT(4 4)', fields: { name: 'd' } }] })
      expect(batch.status).toBe(200)
      const names = async (q: string) => (await api.request('GET', `/api/resource/${layer}/feature/?${q}`)).body
        .map((f: { id: number; vid: number; geom: string; fields: { name: string; n: number | null } }) => [f.id, f.vid, f.geom, f.fields.name, f.fields.n])
      expect(await names('version=2')).toEqual([[a, 2, 'POINT(1 1)', 'a1', null], [b, 2, 'POINT(2 2)', 'b1', null], [c, 2, 'POINT(3 3)', 'c1', null]])
      const at3 = await names('version=3')
      expect(at3.slice(0, 3)).toEqual([[a, 3, 'POINT(1 1)', 'a2', 5], [b, 3, 'POINT(20 20)', 'b1', null], [c, 2, 'POINT(3 3)', 'c1', null]])
      // One transaction (version 4): a updated then deleted, b updated twice, c updated.
      const tid = await txn(api, expect, layer, epoch, [
        [0, { action: 'feature.update', fid: a, vid: 3, fields: [[fieldIds.name, 'a3']] }],
        [1, { action: 'feature.update', fid: b, vid: 3, fields: [[fieldIds.name, 'b3']] }],
        [2, { action: 'feature.update', fid: b, fields: [[fieldIds.n, 7]] }],
        [3, { action: 'feature.delete', fid: a }],
        [4, { action: 'feature.update', fid: c, geom: pointWkb(30, 30) }]])
      expect((await api.request('POST', `/api/resource/${layer}/feature/transaction/${tid}`)).body.status).toBe('committed')
      expect((await names('version=3')).slice(0, 3)).toEqual(at3.slice(0, 3))
      expect((await names('')).slice(0, 2)).toEqual([[b, 4, 'POINT(20 20)', 'b3', 7], [c, 4, 'POINT(30 30)', 'c1', null]])
      const feed = await fetchAll(api, expect, (await check(api, layer, `?epoch=${epoch}&initial=3`)).body.fetch)
      expect(feed.map((o) => [o.action, o.fid, o.vid])).toEqual([['feature.delete', a, 4], ['feature.update', b, 4], ['feature.update', c, 4]])
      const versions = (await api.request('GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=asc`)).body.items
      expect(versions.map((v: { id: number; feature: unknown }) => [v.id, v.feature])).toEqual([
        [1, expect.anything()], [2, { create: 3, update: 0, delete: 0, restore: 0 }], [3, { create: 1, update: 2, delete: 0, restore: 0 }],
        [4, { create: 0, update: 2, delete: 1, restore: 0 }]])
    },
  },
  {
    name: 'feature/version/ lists versions with per-version summaries; feature/version/{vid} names the user',
    async run(api, expect) {
      const { layer, epoch } = await versionedLayer(api, expect)
      const fids = (await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [{ geom: 'POINT(1 1)' }, { geom: 'POINT(2 2)' }] })).body
      await api.request('DELETE', `/api/resource/${layer}/feature/${fids[0].id}`)
      const asc = await api.request('GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=asc`)
      expect(asc.status).toBe(200)
      expect(asc.body.cursor).toBeNull()
      expect(asc.body.items.map((i: { id: number; feature: unknown }) => [i.id, i.feature])).toEqual([
        [1, { create: 0, update: 0, delete: 0, restore: 0 }],
        [2, { create: 2, update: 0, delete: 0, restore: 0 }],
        [3, { create: 0, update: 0, delete: 1, restore: 0 }]])
      const me = (await api.request('GET', '/api/component/auth/current_user')).body
      expect(asc.body.items[1].user).toEqual({ id: me.id })
      const page = await api.request('GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=desc&limit=2`)
      expect(page.body.items.map((i: { id: number }) => i.id)).toEqual([3, 2])
      expect(page.body.cursor).toBe('2')
      const rest = await api.request('GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=desc&limit=2&cursor=2`)
      expect(rest.body.items.map((i: { id: number }) => i.id)).toEqual([1])
      const grouped = await api.request('GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=asc&group=true`)
      // Version 1 is the creator's too, so all three are one user's within two minutes: one group.
      expect(grouped.body.items.map((i: { id: unknown }) => i.id)).toEqual([[1, 3]])
      expect(grouped.body.items[0].feature).toEqual({ create: 1, update: 0, delete: 0, restore: 0 })
      const item = await api.request('GET', `/api/resource/${layer}/feature/version/2`)
      expect(item.body).toEqual({ id: 2, tstamp: expect.any(String), user: { id: me.id, keyname: me.keyname, display_name: expect.any(String) } })
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/version/9`), 422, `${V}.FVersioningOutOfRange`)
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}`), 422, 'nextgisweb.core.exception.ValidationError')
    },
  },
  {
    name: 'transactions: put, commit as one version, results; a commit sent again is one commit',
    async run(api, expect) {
      const { layer, epoch, fieldIds } = await versionedLayer(api, expect)
      const old = (await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(0 0)', fields: { name: 'old' } } })).body.id
      const tid = await txn(api, expect, layer, epoch, [
        [0, { action: 'feature.create', geom: pointWkb(7, 8), fields: [[fieldIds.name, 'new'], [fieldIds.day, '2020-02-29']] }],
        [5, { action: 'feature.update', fid: old, vid: 2, fields: { name: 'renamed' } }],
        [9, { action: 'feature.create', fields: [[fieldIds.n, 3]] }]])
      const col = `/api/resource/${layer}/feature/transaction/${tid}`
      expectError(expect, await api.request('GET', col), 422, `${T}.TransactionNotCommitted`)
      // Sending the same operation again is harmless; a different one under a used seqnum is refused.
      expect((await api.request('PUT', col, { body: [[0, { action: 'feature.create', geom: pointWkb(7, 8), fields: [[fieldIds.name, 'new'], [fieldIds.day, '2020-02-29']] }]] })).status).toBe(200)
      expectError(expect, await api.request('PUT', col, { body: [[0, { action: 'feature.create' }]] }), 409, `${T}.TransactionOperationConflict`)
      // A PUT with a refused operation stores none of its operations; a seqnum twice in one PUT, differently, is refused too.
      expectError(expect, await api.request('PUT', col, { body: [[20, { action: 'feature.create' }], [0, { action: 'feature.create' }]] }),
        409, `${T}.TransactionOperationConflict`)
      expectError(expect, await api.request('PUT', col, { body: [[21, { action: 'feature.create' }], [21, { action: 'feature.create', geom: pointWkb(1, 1) }]] }),
        409, `${T}.TransactionOperationConflict`)
      const commit = await api.request('POST', col)
      expect(commit.body).toEqual({ status: 'committed', committed: expect.any(String) })
      expect(await api.request('POST', col).then((r) => r.body)).toEqual(commit.body)
      const results = (await api.request('GET', col)).body
      expect(results).toEqual([[0, { action: 'feature.create', fid: expect.any(Number) }], [5, { action: 'feature.update' }],
        [9, { action: 'feature.create', fid: expect.any(Number) }]])
      const made = await api.request('GET', `/api/resource/${layer}/feature/${results[0][1].fid}?dt_format=iso`)
      expect(made.body).toMatchObject({ vid: 3, geom: 'POINT(7 8)', fields: { name: 'new', day: '2020-02-29' } })
      expect((await api.request('GET', `/api/resource/${layer}/feature/${old}`)).body).toMatchObject({ vid: 3, fields: { name: 'renamed' } })
      expect((await api.request('GET', `/api/resource/${layer}`)).body.feature_layer.versioning.latest).toBe(3)
      expect((await api.request('DELETE', col)).body).toBeNull()
      expectError(expect, await api.request('GET', col), 404, `${T}.TransactionNotFound`)
    },
  },
  {
    name: 'transaction commit errors: stale vid (feature.conflict 409), missing feature, nothing applied; fixed, it commits',
    async run(api, expect) {
      const { layer, epoch } = await versionedLayer(api, expect)
      const fid = (await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(0 0)', fields: { name: 'a' } } })).body.id
      await api.request('PUT', `/api/resource/${layer}/feature/${fid}`, { body: { fields: { name: 'b' } } })
      const tid = await txn(api, expect, layer, epoch, [
        [1, { action: 'feature.create', geom: pointWkb(1, 1) }],
        [2, { action: 'feature.update', fid, vid: 2, fields: { name: 'c' } }],
        [3, { action: 'feature.delete', fid: 999 }]])
      const col = `/api/resource/${layer}/feature/transaction/${tid}`
      const commit = await api.request('POST', col)
      expect(commit.body).toEqual({ status: 'errors', errors: [
        [2, { error: 'feature.conflict', status_code: 409, message: 'Feature version conflict' }],
        [3, { error: 'feature.not_found', status_code: 404, message: 'Feature not found' }]] })
      expect((await api.request('GET', `/api/resource/${layer}/feature/`)).body).toHaveLength(1)
      expect((await api.request('POST', col)).body.status).toBe('errors')
      await api.request('PUT', col, { body: [[2, { action: 'feature.update', fid, vid: 3, fields: { name: 'c' } }], [3, null]] })
      expect((await api.request('POST', col)).body.status).toBe('committed')
      expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}`)).body.fields.name).toBe('c')
      expect((await api.request('GET', `/api/resource/${layer}/feature/`)).body).toHaveLength(2)
    },
  },
  {
    name: 'transaction errors: epoch required and mismatching, unknown transaction, malformed operations (422, nothing stored)',
    async run(api, expect) {
      const { layer, epoch } = await versionedLayer(api, expect)
      const col = `/api/resource/${layer}/feature/transaction/`
      expectError(expect, await api.request('POST', col, { body: {} }), 422, `${V}.FVersioningEpochRequired`)
      expectError(expect, await api.request('POST', col, { body: { epoch: epoch + 5 } }), 422, `${V}.FVersioningEpochMismatch`)
      expectError(expect, await api.request('GET', `${col}12345`), 404, `${T}.TransactionNotFound`)
      const tid = (await api.request('POST', col, { body: { epoch } })).body.id
      for (const bad of [[[0, { action: 'feature.fly' }]], [[0, { action: 'feature.create', geom: 'AAAA' }]],
        [[0, { action: 'feature.create', geom: pointWkb(1, 1) }], [1, { action: 'feature.update' }]], [[-1, null]], [{ a: 1 }]]) {
        expectError(expect, await api.request('PUT', `${col}${tid}`, { body: bad }), 422, 'nextgisweb.core.exception.ValidationError')
      }
      expect((await api.request('POST', `${col}${tid}`)).body.status).toBe('committed')
      expect((await api.request('GET', `${col}${tid}`)).body).toEqual([])
      expectError(expect, await api.request('POST', col, { auth: 'guest', body: { epoch } }), 403, 'nextgisweb.core.exception.InsufficientPermissions')
    },
  },
  {
    name: 'attachments and descriptions travel in transactions and in the feed (extensions=attachment,description)',
    async run(api, expect) {
      const { layer, epoch } = await versionedLayer(api, expect)
      const upload = await api.request('PUT', '/api/component/file_upload/', { raw: 'hello', headers: { 'content-type': 'text/plain' } })
      expect(upload.status).toBe(201)
      const tid = await txn(api, expect, layer, epoch, [
        [0, { action: 'feature.create', geom: pointWkb(1, 1) }],
        [1, { action: 'attachment.create', fid: { sn: 0 }, source: { type: 'file_upload', id: upload.body.id }, name: 'note.txt', keyname: 'n1' }]])
      const col = `/api/resource/${layer}/feature/transaction/${tid}`
      // description.put takes a feature id, not a seqnum.
      expect((await api.request('PUT', col, { body: [[2, { action: 'description.put', fid: { sn: 0 } }]] })).status).toBe(422)
      expect((await api.request('POST', col)).body.status).toBe('committed')
      const results = (await api.request('GET', col)).body
      const fid = results[0][1].fid
      expect(results[1][1]).toEqual({ action: 'attachment.create', aid: expect.any(Number), fileobj: expect.any(Number) })
      const aid = results[1][1].aid
      const t2 = await txn(api, expect, layer, epoch, [[0, { action: 'description.put', fid, value: '<p>hi</p>' }]])
      expect((await api.request('POST', `/api/resource/${layer}/feature/transaction/${t2}`)).body.status).toBe('committed')
      const feed = await fetchAll(api, expect, (await check(api, layer, '?extensions=attachment,description')).body.fetch)
      expect(feed).toEqual([
        { action: 'feature.create', fid, vid: 2, geom: pointWkb(1, 1), fields: [] },
        { action: 'attachment.create', fid, aid, vid: 2, fileobj: results[1][1].fileobj, keyname: 'n1', name: 'note.txt', mime_type: 'text/plain' },
        { action: 'description.put', fid, vid: 3, value: '<p>hi</p>' }])
      const file = await api.request('GET', `/api/resource/${layer}/feature/${fid}/attachment/${aid}/download?fileobj=${results[1][1].fileobj}`)
      expect(file.text).toBe('hello')
      // An attachment replaced and then deleted: the feed tells both, the old file stays readable.
      const att = `/api/resource/${layer}/feature/${fid}/attachment/${aid}`
      await api.request('DELETE', att)
      const gone = await fetchAll(api, expect, (await check(api, layer, `?epoch=${epoch}&initial=3&extensions=attachment`)).body.fetch)
      expect(gone).toEqual([{ action: 'attachment.delete', fid, aid, vid: 4 }])
      expect((await api.request('GET', `${att}/download?fileobj=${results[1][1].fileobj}`)).text).toBe('hello')
    },
  },
  {
    name: 'versioning can be turned off and on again: a new epoch, the old history gone',
    async run(api, expect) {
      const { layer, epoch } = await versionedLayer(api, expect)
      const fid = (await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(0 0)' } })).body.id
      const off = await api.request('PUT', `/api/resource/${layer}`, { body: { feature_layer: { versioning: { enabled: false } } } })
      expect(off.status).toBe(200)
      expect((await api.request('GET', `/api/resource/${layer}`)).body.feature_layer.versioning).toEqual({ enabled: false })
      expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}`)).body.vid).toBeUndefined()
      await api.request('PUT', `/api/resource/${layer}`, { body: { feature_layer: { versioning: { enabled: true } } } })
      const on = (await api.request('GET', `/api/resource/${layer}`)).body.feature_layer.versioning
      expect(on).toEqual({ enabled: true, epoch: expect.any(Number), latest: 1 })
      expect(on.epoch).toBeGreaterThan(epoch)
      expectError(expect, await check(api, layer, `?epoch=${epoch}&initial=1`), 422, `${V}.FVersioningEpochMismatch`)
      const ops = await fetchAll(api, expect, (await check(api, layer)).body.fetch)
      expect(ops).toEqual([{ action: 'feature.create', fid, vid: 1, geom: pointWkb(0, 0), fields: [] }])
    },
  },
]
