/**
 * @module ogc/wms-info
 * GetFeatureInfo (reference ngw-services §2.5): the features of the query layers within 5
 * pixels of the clicked one, `FEATURE_COUNT` in all (default 1), as GeoJSON or as the
 * original's HTML. Unlike the original (§2.5 TRAP) the geometries are in the request's system,
 * the one the answer's `crs` names.
 */
import type { Principal } from '../auth/types.ts'
import { requireIds } from '../auth/checkpoint.ts'
import type { Polygon } from 'geojson'
import { reproject } from '../geo/reproject.ts'
import { loadProjection } from '../geo/srs.ts'
import { loadStyles } from '../render/service.ts'
import { IDENTIFY_LIMIT } from '../feature/identify.ts'
import { dumpOptions } from '../feature/query.ts'
import { featureJson, rowShape } from '../feature/serialize.ts'
import type { WmsService, WmsServices } from './types.ts'
import { bboxOf, crsOf, pixelOf, sizeOf, type WmsParams, type WmsVersion } from './wms-params.ts'
import { invalidValue, layerNotQueryable } from './wms-errors.ts'
import { isQueryable, layersOf } from './wms-layers.ts'
import { esc } from './xml-out.ts'

/** The clicked pixel ± this many pixels is searched (the original's `GFI_RADIUS`). */
const RADIUS_PX = 5

interface Found { keyname: string; fid: number; label: string; fields: Record<string, unknown>; names: Map<string, string>; geom: unknown }

export async function getFeatureInfo(services: WmsServices, user: Principal, svc: WmsService, params: WmsParams,
  version: WmsVersion): Promise<{ body: string; contentType: string }> {
  const layers = layersOf(svc, params, 'QUERY_LAYERS')
  const crs = await crsOf(params, version, services.platform.epsg)
  const extent = bboxOf(params, crs)
  const width = sizeOf(params, 'WIDTH'), height = sizeOf(params, 'HEIGHT')
  // X/Y take precedence over 1.3.0's I/J, as in the original.
  const px = pixelOf(params, ['X', 'I'], width), py = pixelOf(params, ['Y', 'J'], height)
  const countRaw = params.get('FEATURE_COUNT')
  const count = countRaw === undefined || countRaw === '' ? 1 : /^\d{1,6}$/.test(countRaw) ? Number(countRaw) : NaN
  if (!(count >= 1)) throw invalidValue(`Invalid FEATURE_COUNT parameter: '${countRaw}'.`)
  const rx = (extent[2] - extent[0]) / width, ry = (extent[3] - extent[1]) / height
  const cx = extent[0] + (px + 0.5) * rx, cy = extent[3] - (py + 0.5) * ry
  const [x0, y0, x1, y1] = [cx - RADIUS_PX * rx, cy - RADIUS_PX * ry, cx + RADIUS_PX * rx, cy + RADIUS_PX * ry]
  const box: Polygon = { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] }

  const styles = await loadStyles(services, layers.map((l) => l.resource_id))
  for (const [i, h] of styles.entries()) if (!await isQueryable(services, h)) throw layerNotQueryable(layers[i]!.keyname)
  // The style's data and its feature layer's (§2.5).
  await requireIds(services, user, styles.flatMap((h) => [h.id, h.layer.id]), 'data', 'read')

  const found: Found[] = []
  let left = Math.min(count, IDENTIFY_LIMIT)
  for (const [i, h] of styles.entries()) {
    if (left <= 0) break
    const layer = (await services.classes.featureLayer(h.layer.id))!
    const { meta } = layer
    await loadProjection(meta.srs, services.platform.epsg)
    const g = meta.srs === crs.srs ? box : reproject(box, crs.srs, meta.srs)
    const opts = await dumpOptions(new URLSearchParams({ geom_format: 'geojson', srs: String(crs.srs), dt_format: 'iso',
      extensions: '', label: 'true' }), meta, services.platform.epsg)
    const rows = await layer.read((tx) => tx.list({ filter: { conditions: [], intersects: g, filtered: true }, limit: left }, rowShape(opts)))
    const names = new Map(meta.fields.map((f) => [f.keyname, f.display_name]))
    for (const r of rows) {
      const j = featureJson(r, meta, opts, undefined)
      found.push({ keyname: layers[i]!.keyname, fid: r.fid, label: j.label as string, fields: j.fields as Record<string, unknown>, names, geom: j.geom })
    }
    left -= rows.length
  }

  if (params.get('INFO_FORMAT') === 'application/json') {
    const crsName = crs.name === 'CRS:84' ? 'urn:ogc:def:crs:OGC:1.3:CRS84' : `urn:ogc:def:crs:EPSG::${crs.srs}`
    return {
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({ type: 'FeatureCollection', totalFeatures: 'unknown',
        features: found.map((f) => ({ type: 'Feature', id: `${f.keyname}.${f.fid}`, properties: f.fields, geometry: f.geom ?? null })),
        crs: { type: 'name', properties: { name: crsName } } }),
    }
  }
  // Any other INFO_FORMAT (GDAL asks for GML by default) gets the original's HTML (§2.5).
  return { contentType: 'text/html; charset=utf-8', body: html(found) }
}

const cell = (v: unknown) => esc(v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v))

function html(found: Found[]): string {
  const parts = found.map((f, n) => `<div>${n + 1}. ${esc(f.label)} (<em>${esc(f.keyname)}</em>)</div>\n<table>\n${
    Object.entries(f.fields).map(([k, v]) => `<tr><th>${esc(f.names.get(k) ?? k)}</th><td>${cell(v)}</td></tr>`).join('\n')}\n</table>`)
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head><body>\n${parts.join('\n')}\n</body></html>\n`
}
