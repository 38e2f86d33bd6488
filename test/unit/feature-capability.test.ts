import { describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { RouteTable } from '../../sw/core/routes.ts'
import { ApiError } from '../../sw/core/error.ts'
import { mountFeature } from '../../sw/feature/routes.ts'
import type { FeatureVariables } from '../../sw/feature/env.ts'
import type { Field, LayerMeta } from '../../sw/feature/types.ts'
import { nodePlatform } from '../../sw/host/node.ts'
import { arrayFeatureLayer } from '../port/array-features.ts'

// The feature component serves any class that provides the feature-layer capability. This
// class keeps its features in an array (no SQL, test/port/array-features.ts): the routes work
// through the contract alone.

const NAME: Field = { id: 1, keyname: 'name', display_name: 'Name', datatype: 'STRING', typemod: null, label_field: true,
  grid_visibility: true, text_search: true, required: false, lookup_table: null }
const META: LayerMeta = { resourceId: 7, srs: 4326, geometryType: 'POINT', fields: [NAME] }

function app() {
  const layer = arrayFeatureLayer(META)
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
