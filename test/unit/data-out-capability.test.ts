import { describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { RouteTable } from '../../sw/core/routes.ts'
import { ApiError } from '../../sw/core/error.ts'
import { mountMvt } from '../../sw/mvt/routes.ts'
import { mountExport } from '../../sw/export/routes.ts'
import { mountIdentify } from '../../sw/feature/identify-routes.ts'
import type { DataOutVariables } from '../../sw/feature/capability.ts'
import type { FeatureLayer, FeatureQuery, FeatureRead, Field, FieldValue, LayerMeta, RowShape } from '../../sw/feature/types.ts'
import { bboxOf, type Geometry } from '../../sw/geo/geometry.ts'
import { bboxesIntersect } from '../../sw/geo/tile.ts'
import { nodePlatform } from '../../sw/host/node.ts'
import { decodeTile, tilePosition } from '../api/mvt-decode.ts'
import { readWithGdal, validateGpkg } from '../api/export-read.ts'
import { sqliteGpkgFiles } from '../../sw/sqlite/gpkg-file/writer.ts'
import { Identifiers } from '../../sw/core/identifiers.ts'

// Export, vector tiles and identify serve any class that provides the feature-layer
// capability. This class keeps its features in an array (no SQL, no GeoPackage storage):
// the data-out components take their generic paths.

const NAME: Field = { id: 1, keyname: 'name', display_name: 'Name', datatype: 'STRING', typemod: null, label_field: true,
  grid_visibility: true, text_search: true, required: false, lookup_table: null }
const OK: Field = { ...NAME, id: 2, keyname: 'ok', display_name: 'OK', datatype: 'BOOLEAN', label_field: false }
const META: LayerMeta = { resourceId: 7, srs: 3857, geometryType: 'POINT', fields: [NAME, OK] }
const ROWS: { fid: number; geom: Geometry; values: FieldValue[] }[] = [
  { fid: 1, geom: { type: 'Point', coordinates: [1000, 2000] }, values: ['one', 1] },
  { fid: 2, geom: { type: 'Point', coordinates: [5000, 7000] }, values: ['two', 0] },
  { fid: 5, geom: { type: 'Point', coordinates: [3e6, 3e6] }, values: [null, null] },
]

const arrayLayer: FeatureLayer = {
  meta: META,
  read: async (fn) => fn({
    // Only what the data-out components ask: the fid paging condition and intersects (by box).
    async list(q: FeatureQuery, shape: RowShape) {
      return ROWS.filter((r) => (q.filter?.conditions ?? []).every((c) => c.field === null && c.op === 'gt' && r.fid > Number(c.value)))
        .filter((r) => !q.filter?.intersects || bboxesIntersect(bboxOf(r.geom), bboxOf(q.filter.intersects)))
        .slice(0, q.limit !== undefined && q.limit >= 0 ? q.limit : undefined)
        .map((r) => ({ fid: r.fid, geom: shape.geom ? r.geom : null, values: shape.fields.map((f) => r.values[META.fields.indexOf(f)] ?? null),
          label: r.values[0], description: null }))
    },
  } as unknown as FeatureRead),
  write: () => { throw new Error('read only') },
}

/** The resources as the registry would hand them out (the tree itself is not this test's). */
const REFS = new Map([
  [0, { id: 0, cls: 'resource_group', parentId: null, displayName: 'Root', data: {} }],
  [7, { id: 7, cls: 'array_layer', parentId: 0, displayName: 'Array layer', data: {} }],
])

async function app() {
  const platform = nodePlatform({ admin: { password: 'x', mustChange: false }, log: () => {} })
  const kind = (cls: string) => ({ identity: cls, scopes: cls === 'array_layer' ? ['data', 'resource'] : ['resource'] })
  const classes = {
    find: kind, get: kind, list: () => [],
    featureLayerOf: (cls: string) => (cls === 'array_layer' ? {} : undefined),
    featureLayer: async (id: number) => (id === 7 ? arrayLayer : undefined),
    refs: async (ids: readonly number[]) => ids.map((id) => REFS.get(id)),
    // No resource here is linked to another's permissions (a PostGIS layer's connection).
    linkedNeeds: async () => [],
  }
  const hono = new Hono<{ Variables: DataOutVariables }>()
  hono.use('*', async (c, next) => {
    // Permissions are the checkpoint's tests': every check passes without reading anything.
    c.set('services', { platform, data: { read: async (fn: (tx: unknown) => unknown) => fn({ acl: {} }) } as never, classes: classes as never,
      acl: { check: async () => true, refused: async () => undefined } as never, gpkgFiles: sqliteGpkgFiles(platform.sqlite), names: new Identifiers() })
    c.set('user', { id: 1, keyname: 'guest', displayName: 'Guest', isAdmin: false, isGuest: true, disabled: false,
      mustChangePassword: false, language: null })
    await next()
  })
  hono.onError((err) => Response.json((err as ApiError).toBody(), { status: (err as ApiError).status }))
  const routes = new RouteTable<{ Variables: DataOutVariables }>(hono, () => {})
  mountMvt(routes)
  mountExport(routes)
  mountIdentify(routes)
  return (method: string, path: string, body?: unknown) =>
    hono.request(path, { method, body: body === undefined ? undefined : JSON.stringify(body) })
}

describe('data out through the feature-layer capability alone', () => {
  it('cuts a tile, identifies, and exports GeoJSON and a valid GeoPackage of a class without GeoPackage storage', async () => {
    const call = await app()
    const tile = await call('GET', '/api/component/feature_layer/mvt?resource=7&z=10&x=512&y=511')
    expect(tile.status).toBe(200)
    const layer = decodeTile(new Uint8Array(await tile.arrayBuffer()))['svc:7']!
    expect(layer.features.map((f) => [f.id, f.properties])).toEqual([[1, { name: 'one', ok: true }], [2, { name: 'two', ok: false }]])
    expect(layer.features[0]!.geometry[0]![0]).toEqual(tilePosition(10, 512, 511, 1000, 2000))
    expect((await call('GET', '/api/component/feature_layer/mvt?resource=7&z=10&x=100&y=100')).status).toBe(204)

    const found = await (await call('POST', '/api/feature_layer/identify', { geom: 'POLYGON((0 0,1500 0,1500 2500,0 2500,0 0))', srs: 3857, layers: [7] })).json()
    expect(found).toEqual({ 7: { featureCount: 1, features: [{ id: 1, layerId: 7, label: 'one', fields: { name: 'one', ok: true }, parent: 'Root' }] },
      featureCount: 1 })

    const geojson = await (await call('GET', '/api/resource/7/export?format=GeoJSON&zipped=false&srs=3857')).json()
    expect(geojson.features.map((f: { id: number; properties: unknown }) => [f.id, f.properties])).toEqual([
      // Null values are left out, as the original's GDAL writes them.
      [1, { name: 'one', ok: true }], [2, { name: 'two', ok: false }], [5, {}]])

    const gpkg = new Uint8Array(await (await call('GET', '/api/resource/7/export?format=GPKG&zipped=false&fid=src_id')).arrayBuffer())
    expect(await validateGpkg(gpkg)).toEqual({ status: 0, output: '' })
    const [read] = await readWithGdal(gpkg, 'array.gpkg')
    expect(read!.name).toBe('Array layer')
    expect(read!.features.map((f) => [f.properties.src_id, f.properties.name, f.geometry])).toEqual([
      [1, 'one', { type: 'Point', coordinates: [1000, 2000] }], [2, 'two', { type: 'Point', coordinates: [5000, 7000] }],
      [5, null, { type: 'Point', coordinates: [3e6, 3e6] }]])
  })
})
