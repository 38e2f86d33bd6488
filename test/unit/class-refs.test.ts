import { describe, expect, it, vi } from 'vitest'
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import { loadStyles, versionOf } from '../../sw/render/service.ts'
import { featureSource } from '../../sw/render/features.ts'
import { requireFeatureLayer } from '../../sw/feature/capability.ts'
import { sqliteMain } from '../port/sqlite-main.ts'

// The class registry is the one place that reads what a resource is (its ref); components and
// class capabilities get refs from it. These tests count the reads of the main database that a
// tile costs: none once the refs are known, and one (the refs) after an unrelated write.

const AUTH = { authorization: 'Basic ' + btoa('administrator:pw') }
const WORLD = [-2e7, -2e7, 2e7, 2e7] as [number, number, number, number]

async function setup() {
  const platform = nodePlatform({ admin: { password: 'pw', mustChange: false }, log: () => {} })
  const app = createApp(platform)
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(new Request(`http://host${path}`, { method, headers: AUTH, body: body === undefined ? undefined : JSON.stringify(body) }))
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : undefined }
  }
  const created = async (body: unknown) => {
    const res = await call('POST', '/api/resource/', body)
    expect(res.status).toBe(201)
    return res.body.id as number
  }
  const layer = await created({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'L' },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } })
  expect((await call('POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(1 2)', fields: { name: 'a' } })).status).toBe(200)
  const style = await created({ resource: { cls: 'engine_style', parent: { id: layer }, display_name: 'S' }, engine_style: {} })
  const services = await app.services()
  // Every read of the main database, the legacy path's and the data port's.
  const legacyReads = vi.spyOn(sqliteMain(services), 'read')
  const portReads = vi.spyOn(sqliteMain(services), 'readAsync')
  const reads = {
    mockClear() { legacyReads.mockClear(); portReads.mockClear() },
    get count() { return legacyReads.mock.calls.length + portReads.mock.calls.length },
  }
  /** What a render tile asks of the registry and the layer: the styles, the cache token, the features. */
  const renderTile = async () => {
    const styles = await loadStyles(services, [style])
    await versionOf(services, styles)
    const source = await featureSource(services, styles[0]!.layer.id, style)
    return (await source.query(WORLD, ['name'])).map((r) => r.values)
  }
  return { call, services, reads, layer, style, renderTile }
}

describe('the class lookup in one place', () => {
  it('a second render or vector tile of the same layer reads nothing from the main database', async () => {
    const { services, reads, layer, renderTile } = await setup()
    expect(await renderTile()).toEqual([['a']])
    await requireFeatureLayer(services, layer)
    reads.mockClear()
    expect(await renderTile()).toEqual([['a']])
    const { head, layer: features } = await requireFeatureLayer(services, layer)
    expect(head).toMatchObject({ id: layer, cls: 'vector_layer', displayName: 'L', parentId: 0, isFeatureLayer: true })
    expect(features.meta.fields.map((f) => f.keyname)).toEqual(['name'])
    expect(reads.count).toBe(0)
  })

  it('after a write, opening a feature layer reads the main database again (its ref and its fields), and sees what the write changed', async () => {
    const { call, services, reads, layer, style, renderTile } = await setup()
    await renderTile()
    // A rename elsewhere in the tree moves the main data's change token: the refs are read again
    // (one query) and the layer's field list too (its cache keys on the same token).
    expect((await call('PUT', `/api/resource/${style}`, { resource: { display_name: 'S2' } })).status).toBe(200)
    reads.mockClear()
    expect((await services.classes.featureLayer(layer))?.meta.fields.map((f) => f.keyname)).toEqual(['name'])
    expect(reads.count).toBe(2)
    expect((await services.classes.ref(layer))?.displayName).toBe('L')
    expect(reads.count).toBe(2)
    expect((await loadStyles(services, [style]))[0]!.layer.id).toBe(layer)
    expect((await services.classes.ref(style))?.displayName).toBe('S2')
    expect(reads.count).toBe(3) // the style's ref: one query, then kept
    // A write of the field list is seen by the next open (the refs and the list: two reads).
    expect((await call('PUT', `/api/resource/${layer}`, { vector_layer: { fields: [{ keyname: 'kind', datatype: 'INTEGER' }] } })).status).toBe(200)
    reads.mockClear()
    expect((await services.classes.featureLayer(layer))?.meta.fields.map((f) => f.keyname)).toEqual(['name', 'kind'])
    expect(reads.count).toBe(2)
    // A deleted resource is gone for every capability at once.
    expect((await call('DELETE', `/api/resource/${layer}`)).status).toBe(200)
    expect(await services.classes.featureLayer(layer)).toBeUndefined()
    expect(await services.classes.ref(style)).toBeUndefined()
  })
})
