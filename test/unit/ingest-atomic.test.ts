import { describe, expect, it } from 'vitest'
import { nodePlatform } from '../../sw/host/node.ts'
import { openServices } from '../../sw/services.ts'
import { createApp } from '../../sw/app.ts'
import { storeUploads } from '../../sw/upload/service.ts'
import { prepareVectorLayer } from '../../sw/classes/vector_layer/ingest.ts'
import { SILENT } from '../../sw/ingest/progress.ts'
import { featureCollection, pointsGeojson, utf8 } from '../api/ingest-files.ts'

const AUTH = { authorization: 'Basic ' + btoa('administrator:pw') }

function platform() {
  return nodePlatform({ admin: { password: 'pw', mustChange: false }, log: () => {} })
}

describe('ingest atomicity', () => {
  it('a bad feature near the end of a file writes nothing: no layer, no layer database', async () => {
    const p = platform()
    const app = createApp(p)
    const services = await app.services()
    const good = JSON.parse(pointsGeojson(10_000))
    good.features[9_499].geometry = null
    const [source] = await storeUploads(services, [{ bytes: utf8(JSON.stringify(good)), name: 'late.geojson' }])
    const before = await p.store.listDatabases()
    const res = await app.fetch(new Request('http://host/api/resource/', { method: 'POST', headers: AUTH, body: JSON.stringify({
      resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'late' }, vector_layer: { srs: { id: 3857 }, source } }) }))
    expect(res.status).toBe(422)
    expect(await res.json()).toMatchObject({ data: { file: 'late.geojson', feature: 9_500 } })
    expect(await p.store.listDatabases()).toEqual(before)
    const children = await (await app.fetch(new Request('http://host/api/resource/?parent=0', { headers: AUTH }))).json()
    expect(children.map((c: { resource: { display_name: string } }) => c.resource.display_name)).not.toContain('late')
  })

  it('a layer database built for a layer that was never created (a stopped worker) is swept at the next start', async () => {
    const p = platform()
    const services = await openServices(p)
    const [source] = await storeUploads(services, [{ bytes: utf8(featureCollection([{ geometry: { type: 'Point', coordinates: [30, 60] }, properties: {} }])),
      name: 'one.geojson' }])
    // The ingest's database is saved; then the process "stops" before the resource's write.
    const prepared = await prepareVectorLayer(services, { srs: { id: 3857 }, source }, { progress: SILENT })
    const image = `layer-${prepared.resourceId}`
    expect(await p.store.listDatabases()).toContain(image)
    // While the ingest holds it, a sweep leaves it alone.
    const live = createApp(p)
    const probe = await (await live.fetch(new Request('http://host/api/resource/', { method: 'POST', headers: AUTH, body: JSON.stringify({
      resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'probe' }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT' } }) }))).json()
    await live.fetch(new Request(`http://host/api/resource/${probe.id}/feature_count`, { headers: AUTH }))
    expect(await p.store.listDatabases()).toContain(image)
    prepared.settle()
    // A new start over the same store: the first layer opened sweeps the orphan away.
    const next = createApp(p)
    await next.fetch(new Request(`http://host/api/resource/${probe.id}/feature_count`, { headers: AUTH }))
    expect(await p.store.listDatabases()).not.toContain(image)
    // The reserved id is never handed out again.
    const after = await (await next.fetch(new Request('http://host/api/resource/', { method: 'POST', headers: AUTH, body: JSON.stringify({
      resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'after' } }) }))).json()
    expect(after.id).toBeGreaterThan(prepared.resourceId)
  })
})
