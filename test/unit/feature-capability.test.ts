import { describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { RouteTable } from '../../sw/core/routes.ts'
import { ApiError } from '../../sw/core/error.ts'
import { mountFeature } from '../../sw/feature/routes.ts'
import type { FeatureVariables } from '../../sw/feature/env.ts'
import type {
  AttachmentRow, FeatureFilter, FeatureInput, FeatureLayer, FeatureRead, FeatureRow, FeatureWrite, Field, FieldValue, LayerMeta,
} from '../../sw/feature/types.ts'
import { bboxOf, type Bbox, type Geometry } from '../../sw/geo/geometry.ts'
import { nodePlatform } from '../../sw/host/node.ts'

// The feature component serves any class that provides the feature-layer capability. This
// class keeps its features in an array (no SQL): the routes work through the contract alone.

const NAME: Field = { id: 1, keyname: 'name', display_name: 'Name', datatype: 'STRING', typemod: null, label_field: true,
  grid_visibility: true, text_search: true, required: false, lookup_table: null }
const META: LayerMeta = { resourceId: 7, srs: 4326, geometryType: 'POINT', fields: [NAME] }

interface Stored { fid: number; geom: Geometry | null; values: FieldValue[] }

function arrayLayer(): FeatureLayer {
  let rows: Stored[] = []
  let next = 1
  const matches = (r: Stored, f?: FeatureFilter) => (f?.conditions ?? []).every((c) => {
    const v = c.field ? r.values[META.fields.indexOf(c.field)] : r.fid
    if (c.op === 'eq') return v === c.value
    if (c.op === 'in') return (c.value as FieldValue[]).includes(v ?? null)
    throw new Error(`op ${c.op} is not kept by this test class`)
  })
  const read: FeatureRead = {
    list(q, shape): FeatureRow[] {
      let out = rows.filter((r) => matches(r, q.filter) && (q.fid === undefined || r.fid === q.fid))
      for (const o of [...(q.order ?? [])].reverse()) {
        const i = META.fields.indexOf(o.field)
        out = [...out].sort((a, b) => String(a.values[i]).localeCompare(String(b.values[i])) * (o.desc ? -1 : 1))
      }
      if (q.limit !== undefined && q.limit >= 0) out = out.slice(q.offset ?? 0, (q.offset ?? 0) + q.limit)
      return out.map((r) => ({ fid: r.fid, geom: shape.geom ? r.geom : null,
        values: shape.fields.map((f) => r.values[META.fields.indexOf(f)] ?? null), label: r.values[0], description: null }))
    },
    count: (f) => rows.filter((r) => matches(r, f)).length,
    extent(f): Bbox | null {
      const boxes = rows.filter((r) => matches(r, f) && r.geom).map((r) => bboxOf(r.geom!))
      if (!boxes.length) return null
      return [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))]
    },
    exists: (fid) => rows.some((r) => r.fid === fid),
    geometry: (fid) => rows.find((r) => r.fid === fid)?.geom,
    attachments: () => new Map<number, AttachmentRow[]>(),
    attachment: () => undefined,
  }
  const apply = (r: Stored, input: FeatureInput) => {
    if (input.geom !== undefined) r.geom = input.geom
    input.fields.forEach((f, i) => { r.values[META.fields.indexOf(f)] = input.values[i]! })
  }
  return {
    meta: META,
    read: async (fn) => fn(read),
    async write(fn) {
      const before = structuredClone(rows)
      const tx: FeatureWrite = { ...read, orphanBlobs: [],
        create(input) { const r: Stored = { fid: next++, geom: null, values: [null] }; apply(r, input); rows.push(r); return r.fid },
        update(fid, input) { const r = rows.find((x) => x.fid === fid); if (r) apply(r, input); return !!r },
        delete(fid) { const n = rows.length; rows = rows.filter((r) => r.fid !== fid); return rows.length < n },
        deleteAll() { rows = [] },
        addAttachment() { throw new Error('no attachments here') },
        changeAttachment() { throw new Error('no attachments here') },
        removeAttachment() { throw new Error('no attachments here') },
      }
      try {
        return fn(tx)
      } catch (err) {
        rows = before // all or nothing
        throw err
      }
    },
  }
}

function app() {
  const layer = arrayLayer()
  const platform = nodePlatform({ admin: { password: 'x', mustChange: false }, log: () => {} })
  const hono = new Hono<{ Variables: FeatureVariables }>()
  hono.use('*', async (c, next) => {
    c.set('services', { platform, data: undefined as never, classes: { featureLayer: async (id) => (id === 7 ? layer : undefined) } })
    c.set('user', { id: 4, keyname: 'administrator', displayName: 'Administrator', isAdmin: true, isGuest: false, disabled: false,
      mustChangePassword: false, language: null })
    await next()
  })
  hono.onError((err) => Response.json((err as ApiError).toBody(), { status: (err as ApiError).status }))
  mountFeature(new RouteTable<{ Variables: FeatureVariables }>(hono, () => {}))
  return async (method: string, path: string, body?: unknown) => {
    const res = await hono.request(path, { method, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.status, body: await res.json() }
  }
}

describe('the feature-layer capability', () => {
  it('serves a class that is not a vector layer: writes, filters, ordering, extents and 404s through the contract', async () => {
    const call = app()
    const created = await call('PATCH', '/api/resource/7/feature/', [
      { geom: 'POINT(1 2)', fields: { name: 'b' } }, { geom: 'POINT(5 6)', fields: { name: 'a' } }])
    expect(created).toEqual({ status: 200, body: [{ id: 1 }, { id: 2 }] })
    expect((await call('GET', '/api/resource/7/feature/?order_by=name&label=true')).body).toEqual([
      { id: 2, label: 'a', geom: 'POINT(5 6)', fields: { name: 'a' }, extensions: { attachment: null, description: null } },
      { id: 1, label: 'b', geom: 'POINT(1 2)', fields: { name: 'b' }, extensions: { attachment: null, description: null } }])
    expect((await call('GET', '/api/resource/7/feature_count?fld_name=b')).body).toEqual({ total_count: 2, filtered_count: 1 })
    expect((await call('GET', '/api/resource/7/feature_extent')).body).toEqual({ minLon: 1, minLat: 2, maxLon: 5, maxLat: 6 })
    expect((await call('PUT', '/api/resource/7/feature/1', { fields: { name: 'c' } })).status).toBe(200)
    expect((await call('GET', '/api/resource/7/feature/1?geom=no')).body).toEqual({ id: 1, fields: { name: 'c' },
      extensions: { attachment: null, description: null } })
    // A batch with a missing feature changes nothing.
    const bad = await call('PATCH', '/api/resource/7/feature/', [{ id: 1, fields: { name: 'd' } }, { id: 99, fields: { name: 'e' } }])
    expect(bad.status).toBe(404)
    expect(bad.body.exception).toBe('nextgisweb.feature_layer.exception.FeatureNotFound')
    expect((await call('GET', '/api/resource/7/feature/1')).body.fields).toEqual({ name: 'c' })
    expect((await call('DELETE', '/api/resource/7/feature/2')).status).toBe(200)
    expect((await call('GET', '/api/resource/7/feature/2')).status).toBe(404)
    expect((await call('GET', '/api/resource/8/feature/')).body.exception).toBe('nextgisweb.resource.exception.ResourceNotFound')
  })
})
