/**
 * Feature writes with an `Idempotency-Key` run once: the same request again gets the first
 * answer and writes nothing (feature/idempotency.ts). What makes Chromium's replay of a
 * stopped worker's request harmless.
 */
import type { ApiCase } from '../harness.ts'
import { createLayer } from './feature.ts'
import { newGroup, uploadFile } from './ingest.ts'
import { uniq } from '../harness.ts'

const FIELDS = [{ keyname: 'name', datatype: 'STRING' }]
const key = (s: string) => ({ 'Idempotency-Key': `${s}-${Date.now()}-${Math.random()}` })

export const idempotencyCases: ApiCase[] = [
  {
    name: 'a keyed POST, batch PATCH, PUT and DELETE sent twice write once and answer the same both times',
    async run(api, expect) {
      const layer = await createLayer(api, expect, 'POINT', FIELDS, 3857, true)
      const base = `/api/resource/${layer}/feature/`
      const count = async () => (await api.request('GET', `/api/resource/${layer}/feature_count`)).body.total_count as number

      const post = { body: { geom: 'POINT(1 2)', fields: { name: 'one' } }, headers: key('post') }
      const first = await api.request('POST', base, post)
      expect(first.status).toBe(200)
      expect(first.body).toEqual({ id: expect.any(Number), version: expect.any(Number) })
      const v = first.body.version as number
      const again = await api.request('POST', base, post)
      expect(again.status).toBe(200)
      expect(again.body).toEqual(first.body)
      expect(first.headers['idempotent-replayed']).toBeUndefined()
      expect(again.headers['idempotent-replayed']).toBe('true')
      expect(await count()).toBe(1)

      const batch = { body: [{ geom: 'POINT(3 4)', fields: { name: 'two' } }, { geom: 'POINT(5 6)', fields: { name: 'three' } }], headers: key('patch') }
      const b1 = await api.request('PATCH', base, batch)
      const b2 = await api.request('PATCH', base, batch)
      expect(b1.status).toBe(200)
      expect(b2.body).toEqual(b1.body)
      expect(await count()).toBe(3)

      const id = first.body.id as number
      const put = { body: { fields: { name: 'renamed' } }, headers: key('put') }
      const p1 = await api.request('PUT', `${base}${id}`, put)
      expect(p1.body).toEqual({ id, version: v + 2 })
      expect((await api.request('PUT', `${base}${id}`, put)).body).toEqual(p1.body)
      // One version per write: a replay made none.
      expect((await api.request('GET', `/api/resource/${layer}`)).body.feature_layer.versioning.latest).toBe(v + 2)

      const del = { headers: key('delete') }
      expect((await api.request('DELETE', `${base}${id}`, del)).status).toBe(200)
      // Without the key the second DELETE would be a 404: the feature is gone.
      const d2 = await api.request('DELETE', `${base}${id}`, del)
      expect(d2.status).toBe(200)
      expect(d2.body).toEqual({ id, version: v + 3 })
      expect((await api.request('DELETE', `${base}${id}`)).status).toBe(404)
      expect(await count()).toBe(2)

      // Without a key every request writes.
      for (let i = 0; i < 2; i++) expect((await api.request('POST', base, { body: { geom: 'POINT(0 0)' } })).status).toBe(200)
      expect(await count()).toBe(4)
    },
  },
  {
    name: 'a key reused for another request and a malformed key are 422s that write nothing',
    async run(api, expect) {
      const layer = await createLayer(api, expect, 'POINT', FIELDS)
      const other = await createLayer(api, expect, 'POINT', FIELDS)
      const headers = key('reuse')
      expect((await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 1)' }, headers })).status).toBe(200)
      // The same key on another path of the same layer.
      const reused = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [{ geom: 'POINT(2 2)' }], headers })
      expect(reused.status).toBe(422)
      expect(reused.body).toMatchObject({ title: 'Invalid Idempotency-Key', status_code: 422, data: { location: ['header', 'Idempotency-Key'] } })
      expect(reused.body.message).toContain('already used for another request')
      // Keys are per layer: the same key on another layer is a new request.
      expect((await api.request('POST', `/api/resource/${other}/feature/`, { body: { geom: 'POINT(1 1)' }, headers })).status).toBe(200)
      for (const bad of ['', 'x'.repeat(256), 'tab\there', 'cl\u00e9']) {
        const res = await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(3 3)' }, headers: { 'Idempotency-Key': bad } })
        expect(res.status, JSON.stringify(bad)).toBe(422)
        expect(res.body.title).toBe('Invalid Idempotency-Key')
      }
      // A quoted key (the draft's structured-field form) is the same key as the bare one.
      const quoted = `q-${Date.now()}`
      const q1 = await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(4 4)' }, headers: { 'Idempotency-Key': `"${quoted}"` } })
      const q2 = await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(4 4)' }, headers: { 'Idempotency-Key': quoted } })
      expect(q2.body).toEqual(q1.body)
      expect((await api.request('GET', `/api/resource/${layer}/feature_count`)).body.total_count).toBe(2)
    },
  },
  {
    name: 'a keyed resource create sent twice makes one resource, also one made from an uploaded file',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const children = async () => (await api.request('GET', `/api/resource/?parent=${parent}`)).body.length as number
      const group = { body: { resource: { cls: 'resource_group', parent: { id: parent }, display_name: uniq('Keyed') } }, headers: key('group') }
      const first = await api.request('POST', '/api/resource/', group)
      expect(first.status).toBe(201)
      const again = await api.request('POST', '/api/resource/', group)
      expect(again.status).toBe(201)
      expect(again.body).toEqual(first.body)
      expect(again.headers['idempotent-replayed']).toBe('true')
      expect(await children()).toBe(1)

      // The first run consumed the upload: the replay must answer before preparing anything.
      const source = await uploadFile(api, expect, 'points.geojson', JSON.stringify({ type: 'FeatureCollection',
        features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [10, 20] }, properties: { name: 'a' } }] }))
      const layer = { body: { resource: { cls: 'vector_layer', parent: { id: parent }, display_name: uniq('Keyed layer') },
        vector_layer: { srs: { id: 3857 }, source } }, headers: key('layer') }
      const l1 = await api.request('POST', '/api/resource/', layer)
      expect(l1.status).toBe(201)
      const l2 = await api.request('POST', '/api/resource/', layer)
      expect(l2.status).toBe(201)
      expect(l2.body).toEqual(l1.body)
      expect(await children()).toBe(2)
      expect((await api.request('GET', `/api/resource/${l1.body.id}/feature_count`)).body).toEqual({ total_count: 1 })
    },
  },
]
