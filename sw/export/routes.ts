/**
 * @module export/routes
 * `resource.export`, `feature_layer.geojson`, the spec's `/csv`, and the multi-layer
 * `feature_layer.export` (GET and POST). Reading needs `data.read` on every layer
 * named (the route table checks the path's; the multi-layer export checks its list itself).
 */
import { inHandler, onPath, type Routes } from '../core/routes.ts'
import { resourceHeads, type DataOutVariables } from '../feature/capability.ts'
import { readJson } from '../core/http.ts'
import { requireOn } from '../auth/checkpoint.ts'
import { checkItems, exportRequest, postedExport, queriedItems, type ExportRequest } from './params.ts'
import { exportLayer, exportLayers, type ExportAnswer } from './service.ts'

function respond(a: ExportAnswer): Response {
  const headers: Record<string, string> = { 'content-type': a.mime, 'content-disposition': `attachment; filename=${a.filename}` }
  if (a.size !== undefined) headers['content-length'] = String(a.size)
  return new Response(a.body, { headers })
}

/** The query with fixed values set (a download route's format). */
function withFixed(url: string, fixed: Record<string, string>): URLSearchParams {
  const params = new URL(url).searchParams
  for (const [k, v] of Object.entries(fixed)) params.set(k, v)
  return params
}

export function mountExport(routes: Routes<DataOutVariables>): void {
  // Overloaded per class, as in the original: other resources pass on to the next component.
  routes.add('resource.export', '/api/resource/{id}/export', 'GET', onPath('data', 'read'), async (c) => {
    const id = Number(c.req.param('id'))
    const [head] = await resourceHeads(c.get('services'), [id])
    if (!head?.isFeatureLayer) return undefined
    return respond(await exportLayer(c.get('services'), id, await exportRequest(new URL(c.req.url).searchParams, c.get('services').platform.epsg)))
  })

  // The whole layer as a GeoJSON file in its own SRS (reference §8).
  routes.add('feature_layer.geojson', '/api/resource/{id}/geojson', 'GET', onPath('data', 'read'), async (c) => {
    const req: ExportRequest = { ...await exportRequest(withFixed(c.req.url, { format: 'GeoJSON', zipped: 'false' }), c.get('services').platform.epsg), keepLayerSrs: true }
    return respond(await exportLayer(c.get('services'), Number(c.req.param('id')), req))
  })

  // The spec's CSV download (spec §4.8): the CSV export, not zipped.
  routes.add('feature_layer.csv', '/api/resource/{id}/csv', 'GET', onPath('data', 'read'), async (c) =>
    respond(await exportLayer(c.get('services'), Number(c.req.param('id')),
      await exportRequest(withFixed(c.req.url, { format: 'CSV', zipped: 'false' }), c.get('services').platform.epsg))))

  routes.add('feature_layer.export', '/api/component/feature_layer/export', ['GET', 'POST'], inHandler('data', 'read', 'the layers of the query or body'), async (c) => {
    let params: URLSearchParams
    let items
    if (c.req.method === 'POST') ({ params, items } = postedExport(await readJson(c.req.raw)))
    else { params = new URL(c.req.url).searchParams; items = queriedItems(params) }
    checkItems(items)
    // Every layer named needs data.read, as the original checks each one before it writes any.
    await requireOn(c, items.map((it) => it.id), 'data', 'read')
    return respond(await exportLayers(c.get('services'), items, await exportRequest(params, c.get('services').platform.epsg)))
  })
}
