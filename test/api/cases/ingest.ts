/**
 * Vector layers from files (spec §2.2 "vector_layer, from file"; reference §4, §7): every
 * supported format, every rule of the spec, the original's loader options, progress.
 */
import type { Api, ApiCase, ApiResponse, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import {
  base64, CSV_TEXT, CYRILLIC, featureCollection, placemarksKml, pointsGeojson, pointsShapefileZip, polygonsGpkg, utf8, waypointsGpx,
  zippedShapefile,
} from '../ingest-files.ts'
import { lyingZipBomb, zipBomb } from '../ingest-bombs.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'

export async function uploadFile(api: Api, expect: Expect, name: string, bytes: Uint8Array | string): Promise<Record<string, unknown>> {
  const res = await api.request('POST', '/api/component/file_upload/', {
    form: [{ name: 'file', filename: name, base64: base64(typeof bytes === 'string' ? utf8(bytes) : bytes) }] })
  expect(res.status).toBe(200)
  return res.body.upload_meta[0]
}

export async function newGroup(api: Api, expect: Expect): Promise<number> {
  const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: uniq('Ingest') } } })
  expect(res.status).toBe(201)
  return res.body.id
}

/** Uploads `bytes` as `name` and creates a vector layer from it in `parent`. */
export async function layerFromFile(api: Api, expect: Expect, parent: number, name: string, bytes: Uint8Array | string,
  member: Record<string, unknown> = {}, sourceExtra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const source = { ...(await uploadFile(api, expect, name, bytes)), ...sourceExtra }
  return api.request('POST', '/api/resource/', { headers, body: { resource: { cls: 'vector_layer', parent: { id: parent }, display_name: uniq(name) },
    vector_layer: { srs: { id: 3857 }, source, ...member } } })
}

async function features(api: Api, id: number, query = 'srs=4326'): Promise<Array<{ id: number; geom: any; fields: Record<string, unknown> }>> { // reason: WKT or GeoJSON by query
  return (await api.request('GET', `/api/resource/${id}/feature/?${query}`)).body
}

async function childCount(api: Api, parent: number): Promise<number> {
  return (await api.request('GET', `/api/resource/?parent=${parent}`)).body.length
}

/** Expects a refused file: a 422 naming it (and the feature and field), and nothing created. */
async function expectRefused(api: Api, expect: Expect, parent: number, res: ApiResponse, data: Record<string, unknown>): Promise<void> {
  expectError(expect, res, 422, VALIDATION)
  expect(res.body.data).toMatchObject(data)
  expect(res.body.message).toContain(String(data.file))
  expect(await childCount(api, parent)).toBe(0)
}

const fieldTypes = (body: { feature_layer: { fields: Array<{ keyname: string; datatype: string }> } }) =>
  Object.fromEntries(body.feature_layer.fields.map((f) => [f.keyname, f.datatype]))

export const ingestCases: ApiCase[] = [
  {
    name: 'a GeoJSON becomes a vector layer: fields and geometry type from the data, features reprojected to the layer srs',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const res = await layerFromFile(api, expect, parent, 'wells.geojson', pointsGeojson(250))
      expect(res.status).toBe(201)
      expect(res.body).toEqual({ id: expect.any(Number), parent: { id: parent } })
      const layer = (await api.request('GET', `/api/resource/${res.body.id}`)).body
      expect(layer.vector_layer).toEqual({ srs: { id: 3857 }, geometry_type: 'POINT' })
      expect(fieldTypes(layer)).toEqual({ name: 'STRING', depth: 'REAL', year: 'INTEGER', surveyed: 'DATE' })
      expect((await api.request('GET', `/api/resource/${res.body.id}/feature_count`)).body).toEqual({ total_count: 250 })
      const [first] = await features(api, res.body.id, 'limit=1&dt_format=iso')
      expect(first!.id).toBe(1)
      expect(first!.fields).toEqual({ name: 'Well 1', depth: 10.5, year: 1990, surveyed: '2020-01-01' })
      // Stored in 3857: (30, 60) is x ≈ 3339584.72, y ≈ 8399737.89.
      const [x, y] = /POINT ?\(([-\d.]+) ([-\d.]+)\)/.exec(first!.geom)!.slice(1).map(Number)
      expect(x).toBeCloseTo(3339584.72, 1)
      expect(y).toBeCloseTo(8399737.89, 1)
      // The spatial index knows every feature: a box around the first point finds it.
      const hit = await features(api, res.body.id, `intersects=${encodeURIComponent('POLYGON((3339580 8399730, 3339590 8399730, 3339590 8399745, 3339580 8399745, 3339580 8399730))')}`)
      expect(hit.map((f) => f.id)).toEqual([1])
      const extent = (await api.request('GET', `/api/resource/${res.body.id}/extent`)).body.extent
      expect(extent.minLon).toBeCloseTo(30, 6)
      expect(extent.maxLat).toBeCloseTo(60.002, 6)
    },
  },
  {
    name: 'a zipped CP1251 shapefile with its .cpg keeps its Cyrillic values; without the .cpg the upload\'s encoding is honoured',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const withCpg = await layerFromFile(api, expect, parent, 'wells.zip', await zippedShapefile())
      expect(withCpg.status).toBe(201)
      expect((await features(api, withCpg.body.id)).map((f) => f.fields.name)).toEqual(CYRILLIC)
      const declared = await layerFromFile(api, expect, parent, 'wells-nocpg.zip', await zippedShapefile(['cpg']), {}, { encoding: 'CP1251' })
      expect(declared.status).toBe(201)
      expect((await features(api, declared.body.id)).map((f) => f.fields.name)).toEqual(CYRILLIC)
    },
  },
  {
    name: 'a CP1251 shapefile without .cpg read as UTF-8 is refused, naming the file, feature and field',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const res = await layerFromFile(api, expect, parent, 'wells-nocpg.zip', await zippedShapefile(['cpg']))
      await expectRefused(api, expect, parent, res, { file: 'wells-nocpg.zip', feature: 1, field: 'name' })
      expect(res.body.message).toMatch(/not valid in its encoding/)
    },
  },
  {
    name: 'a shapefile whose .cpg names an encoding other than UTF-8 or CP1251 is refused when its text is not ASCII',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const res = await layerFromFile(api, expect, parent, 'latin.zip', await zippedShapefile([], { cpg: utf8('ISO-8859-5') }))
      await expectRefused(api, expect, parent, res, { file: 'latin.zip', encoding: 'ISO-8859-5' })
      const declared = await layerFromFile(api, expect, parent, 'wells.zip', await zippedShapefile(), {}, { encoding: 'KOI8-R' })
      await expectRefused(api, expect, parent, declared, { file: 'wells.zip', encoding: 'KOI8-R' })
      // Text in ASCII reads the same in any encoding: GDAL's default shapefile (ISO-8859-1 in its DBF) is taken.
      const ascii = await layerFromFile(api, expect, parent, 'ascii.zip', await pointsShapefileZip(5, 'ascii', null))
      expect(ascii.status).toBe(201)
      expect((await features(api, ascii.body.id)).map((f) => f.fields.name)).toEqual(['Well 1', 'Well 2', 'Well 3', 'Well 4', 'Well 5'])
    },
  },
  {
    name: 'a shapefile without .prj has no spatial reference: refused, nothing created',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const res = await layerFromFile(api, expect, parent, 'noprj.zip', await zippedShapefile(['prj']))
      await expectRefused(api, expect, parent, res, { file: 'noprj.zip' })
      expect(res.body.message).toMatch(/coordinate system/)
    },
  },
  {
    name: 'GeoPackage, KML, GPX and CSV with coordinate columns become layers',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const gpkg = await layerFromFile(api, expect, parent, 'landuse.gpkg', await polygonsGpkg(), { srs: { id: 4326 } })
      expect(gpkg.status).toBe(201)
      const g = (await api.request('GET', `/api/resource/${gpkg.body.id}`)).body
      expect(g.vector_layer).toEqual({ srs: { id: 4326 }, geometry_type: 'POLYGON' })
      expect(fieldTypes(g)).toEqual({ kind: 'STRING', area: 'REAL' })
      const poly = (await features(api, gpkg.body.id, 'geom_format=geojson'))[0]!
      expect(poly.fields).toEqual({ kind: 'forest', area: 1.5 })
      expect(poly.geom.type).toBe('Polygon')
      expect(poly.geom.coordinates[0][0][0]).toBeCloseTo(30, 4) // reprojected from 3857 to the layer's 4326
      expect(poly.geom.coordinates[0][0][1]).toBeCloseTo(60, 4)

      const kml = await layerFromFile(api, expect, parent, 'camps.kml', await placemarksKml())
      expect(kml.status).toBe(201)
      const k = (await api.request('GET', `/api/resource/${kml.body.id}`)).body
      expect(k.vector_layer.geometry_type).toMatch(/^POINTZ?$/)
      expect((await features(api, kml.body.id)).map((f) => f.fields.Name)).toEqual(['Camp', 'Spring'])

      const gpx = await layerFromFile(api, expect, parent, 'track.gpx', await waypointsGpx())
      expect(gpx.status).toBe(201)
      expect((await features(api, gpx.body.id)).map((f) => f.fields.name)).toEqual(['WP1', 'WP2', 'WP3'])

      const csv = await layerFromFile(api, expect, parent, 'stations.csv', CSV_TEXT)
      expect(csv.status).toBe(201)
      const c = (await api.request('GET', `/api/resource/${csv.body.id}`)).body
      expect(c.vector_layer.geometry_type).toBe('POINT')
      expect(fieldTypes(c)).toEqual({ name: 'STRING', count: 'INTEGER' })
      const pts = await features(api, csv.body.id)
      expect(pts.map((f) => f.fields)).toEqual([{ name: 'North', count: 3 }, { name: 'South', count: 7 }])
      expect(pts[0]!.geom).toMatch(/^POINT ?\(30\.5(0*\d*)? 60\.5/)
    },
  },
  {
    name: 'a GeoJSON that is not UTF-8 is refused unless the upload says CP1251',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const text = featureCollection([{ geometry: { type: 'Point', coordinates: [30, 60] }, properties: { name: 'Пруд' } }])
      const cp1251 = new Uint8Array([...text].map((ch) => (ch === 'П' ? 0xcf : ch === 'р' ? 0xf0 : ch === 'у' ? 0xf3 : ch === 'д' ? 0xe4 : ch.charCodeAt(0))))
      const res = await layerFromFile(api, expect, parent, 'pond.geojson', cp1251)
      await expectRefused(api, expect, parent, res, { file: 'pond.geojson' })
      expect(res.body.message).toMatch(/not valid UTF-8/)
      const ok = await layerFromFile(api, expect, parent, 'pond.geojson', cp1251, {}, { encoding: 'CP1251' })
      expect(ok.status).toBe(201)
      expect((await features(api, ok.body.id))[0]!.fields.name).toBe('Пруд')
    },
  },
  {
    name: 'invalid or missing geometry is refused naming the feature; nothing is created',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const ok = { type: 'Polygon', coordinates: [[[30, 60], [31, 60], [31, 61], [30, 60]]] }
      const unclosed = featureCollection([{ geometry: ok, properties: { n: 1 } },
        { geometry: { type: 'Polygon', coordinates: [[[30, 60], [31, 60], [31, 61], [30, 61]]] }, properties: { n: 2 } }])
      const res = await layerFromFile(api, expect, parent, 'unclosed.geojson', unclosed)
      await expectRefused(api, expect, parent, res, { file: 'unclosed.geojson', feature: 2 })
      expect(res.body.message).toMatch(/unclosed rings/)
      const missing = featureCollection([{ geometry: ok, properties: { n: 1 } }, { geometry: ok, properties: { n: 2 } }, { geometry: null, properties: { n: 3 } }])
      const res2 = await layerFromFile(api, expect, parent, 'missing.geojson', missing)
      await expectRefused(api, expect, parent, res2, { file: 'missing.geojson', feature: 3 })
      expect(res2.body.message).toMatch(/no geometry/)
      // The original's options: skip_errors leaves the bad feature out, fix_errors SAFE closes the ring.
      const skipped = await layerFromFile(api, expect, parent, 'missing.geojson', missing, { skip_errors: true })
      expect(skipped.status).toBe(201)
      expect((await features(api, skipped.body.id)).map((f) => f.fields.n)).toEqual([1, 2])
      const fixed = await layerFromFile(api, expect, parent, 'unclosed.geojson', unclosed, { fix_errors: 'SAFE' })
      expect(fixed.status).toBe(201)
      expect((await features(api, fixed.body.id)).length).toBe(2)
    },
  },
  {
    name: 'a field named id and non-printable characters in names or values are refused naming the field',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const pt = { type: 'Point', coordinates: [30, 60] }
      const id = await layerFromFile(api, expect, parent, 'ids.geojson', featureCollection([{ geometry: pt, properties: { id: 'a', name: 'x' } }]))
      await expectRefused(api, expect, parent, id, { file: 'ids.geojson', field: 'id' })
      const value = await layerFromFile(api, expect, parent, 'bell.geojson', featureCollection([
        { geometry: pt, properties: { name: 'fine\ttext' } }, { geometry: pt, properties: { name: 'ring\u0007bell' } }]))
      await expectRefused(api, expect, parent, value, { file: 'bell.geojson', feature: 2, field: 'name' })
      expect(value.body.message).toMatch(/non-printable character \(U\+0007\)/)
      const name = await layerFromFile(api, expect, parent, 'names.geojson', featureCollection([{ geometry: pt, properties: { 'bad\u0001name': 1 } }]))
      await expectRefused(api, expect, parent, name, { file: 'names.geojson', field: 'bad\u0001name' })
    },
  },
  {
    name: 'mixed single and multi geometries make a multi layer; cast options decide the type',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const mixed = featureCollection([
        { geometry: { type: 'Point', coordinates: [30, 60] }, properties: {} },
        { geometry: { type: 'MultiPoint', coordinates: [[30, 60], [31, 61]] }, properties: {} }])
      const res = await layerFromFile(api, expect, parent, 'mixed.geojson', mixed)
      expect(res.status).toBe(201)
      expect((await api.request('GET', `/api/resource/${res.body.id}`)).body.vector_layer.geometry_type).toBe('MULTIPOINT')
      expect((await features(api, res.body.id, 'srs=4326&geom_format=geojson')).map((f) => f.geom)).toEqual([
        { type: 'MultiPoint', coordinates: [[expect.closeTo(30, 9), expect.closeTo(60, 9)]] },
        { type: 'MultiPoint', coordinates: [[expect.closeTo(30, 9), expect.closeTo(60, 9)], [expect.closeTo(31, 9), expect.closeTo(61, 9)]] }])
      const z = await layerFromFile(api, expect, parent, 'mixed.geojson', mixed, { cast_has_z: true })
      expect((await api.request('GET', `/api/resource/${z.body.id}`)).body.vector_layer.geometry_type).toBe('MULTIPOINTZ')
      const other = await newGroup(api, expect)
      const single = await layerFromFile(api, expect, other, 'mixed.geojson', mixed, { cast_is_multi: false })
      await expectRefused(api, expect, other, single, { file: 'mixed.geojson', feature: 2 })
      expect(single.body.message).toMatch(/multiple geometries/)
    },
  },
  {
    name: 'a dataset with several layers needs source_layer',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const gpx = await waypointsGpx()
      // GPX has five layers, only `waypoints` has features: it is taken.
      expect((await layerFromFile(api, expect, parent, 'w.gpx', gpx)).status).toBe(201)
      const wrong = await layerFromFile(api, expect, parent, 'w.gpx', gpx, { source_layer: 'nope' })
      expectError(expect, wrong, 422, VALIDATION)
      expect(wrong.body.data.layers).toContain('waypoints')
    },
  },
  {
    name: 'inspect shows what GDAL detected in an upload',
    async run(api, expect) {
      const source = await uploadFile(api, expect, 'wells.zip', await zippedShapefile())
      const res = await api.request('POST', '/api/component/outpost/ingest/inspect', { body: { source } })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ driver: 'ESRI Shapefile', encoding: 'CP1251', layers: [{ name: 'wells', feature_count: 3, geometry_type: 'POINT',
        srs: 'EPSG:4326', fields: [{ name: 'name', type: 'String' }, { name: 'depth', type: 'Integer' }] }] })
      expectError(expect, await api.request('POST', '/api/component/outpost/ingest/inspect', { body: { source }, auth: 'guest' }), 403,
        'nextgisweb.core.exception.ForbiddenError')
    },
  },
  {
    name: 'a file that is not what its extension says, or has no geometry, is a 422 at inspection naming it; create refuses it too, nothing is created',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      // A text file renamed .shp was read as a CSV without geometry, and the create answered 500.
      const text = await uploadFile(api, expect, 'notes.shp', 'Meeting notes\nBring the maps, and the GPS.\n')
      const inspected = await api.request('POST', '/api/component/outpost/ingest/inspect', { body: { source: text } })
      expectError(expect, inspected, 422, VALIDATION)
      expect(inspected.body.data).toMatchObject({ file: 'notes.shp' })
      expect(inspected.body.message).toMatch(/^notes\.shp: .*not a shapefile/)
      const created = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: parent },
        display_name: uniq('notes') }, vector_layer: { srs: { id: 3857 }, source: text } } })
      await expectRefused(api, expect, parent, created, { file: 'notes.shp' })
      // A lone real .shp: GDAL needs its other parts.
      const lone = await uploadFile(api, expect, 'wells.shp', new Uint8Array([0, 0, 0x27, 0x0a, ...new Array(96).fill(0)]))
      const loneRes = await api.request('POST', '/api/component/outpost/ingest/inspect', { body: { source: lone } })
      expectError(expect, loneRes, 422, VALIDATION)
      expect(loneRes.body.message).toMatch(/^wells\.shp: .*ZIP archive holding its \.shp, \.shx, \.dbf and \.prj/)
      // Other extensions that promise a format the bytes are not: refused by GDAL or the ZIP check, naming the file.
      for (const name of ['notes.zip', 'notes.gpkg', 'notes.geojson', 'notes.kml']) {
        const source = await uploadFile(api, expect, name, 'just some words, no data\n')
        const res = await api.request('POST', '/api/component/outpost/ingest/inspect', { body: { source } })
        expectError(expect, res, 422, VALIDATION)
        expect(res.body.data.file).toBe(name)
      }
      // A CSV without coordinate columns has no geometry for a vector layer.
      const plain = await uploadFile(api, expect, 'table.csv', 'name,count\nNorth,3\nSouth,7\n')
      const noGeom = await api.request('POST', '/api/component/outpost/ingest/inspect', { body: { source: plain } })
      expectError(expect, noGeom, 422, VALIDATION)
      expect(noGeom.body.message).toMatch(/^table\.csv: .*no geometry/)
      const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: parent },
        display_name: uniq('table') }, vector_layer: { srs: { id: 3857 }, source: plain } } })
      await expectRefused(api, expect, parent, res, { file: 'table.csv' })
      expect(res.body.message).toMatch(/no geometry/)
    },
  },
  {
    name: 'the progress of a create is reported under its token: done with the new id, or failed with the error body',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const token = `tok${Date.now().toString(36)}${Math.random().toString(36).slice(2)}xxxxxxxx`
      const res = await layerFromFile(api, expect, parent, 'wells.geojson', pointsGeojson(50), {}, {}, { 'x-outpost-progress': token })
      expect(res.status).toBe(201)
      const p = await api.request('GET', `/api/component/outpost/progress/${token}`)
      expect(p.status).toBe(200)
      expect(p.body).toMatchObject({ state: 'done', result: { id: res.body.id } })
      // Where the time went, stage by stage (GDAL's start is its own stage).
      expect(Object.keys(p.body.timings)).toEqual(['starting', 'gdal', 'reading', 'converting', 'checking', 'writing', 'saving'])
      for (const ms of Object.values(p.body.timings)) expect(ms).toBeGreaterThanOrEqual(0)
      const gdal = await api.request('POST', '/api/component/outpost/gdal/start')
      expect(gdal.status).toBe(200)
      expect(gdal.body).toMatchObject({ started: true })
      expect(gdal.body.start_ms).toBeGreaterThanOrEqual(0)
      expectError(expect, await api.request('GET', '/api/component/outpost/gdal', { auth: 'guest' }), 403, 'nextgisweb.core.exception.ForbiddenError')
      const bad = `bad${token}`
      const failed = await layerFromFile(api, expect, parent, 'x.geojson', '{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": null, "properties": {}}]}',
        { cast_geometry_type: 'POINT' }, {}, { 'x-outpost-progress': bad })
      expect(failed.status).toBe(422)
      const fp = await api.request('GET', `/api/component/outpost/progress/${bad}`)
      expect(fp.body).toMatchObject({ state: 'failed', error: { status_code: 422, exception: VALIDATION } })
      expect((await api.request('GET', '/api/component/outpost/progress/unknown-token-000000')).status).toBe(404)
    },
  },
  {
    name: 'DELETE on a running create\'s progress token cancels it: the create answers 409 cancelled and nothing is created; a late cancel is a 409 naming the result',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const token = `cancel${Date.now().toString(36)}${Math.random().toString(36).slice(2)}xxxxxxxx`
      const source = await uploadFile(api, expect, 'many.geojson', pointsGeojson(60_000))
      const create = api.request('POST', '/api/resource/', { headers: { 'x-outpost-progress': token }, body: {
        resource: { cls: 'vector_layer', parent: { id: parent }, display_name: uniq('many') }, vector_layer: { srs: { id: 3857 }, source } } })
      // Cancel as soon as the server has the job (404 until then): well before 60,000 features are converted.
      let cancel = await api.request('DELETE', `/api/component/outpost/progress/${token}`)
      for (let i = 0; i < 1000 && cancel.status === 404; i++) {
        await new Promise((r) => setTimeout(r, 10))
        cancel = await api.request('DELETE', `/api/component/outpost/progress/${token}`)
      }
      expect(cancel.status).toBe(202)
      expect(cancel.body).toMatchObject({ state: 'running', stage: 'cancelling' })
      const res = await create
      expectError(expect, res, 409, 'nextgisweb.core.exception.OperationalError')
      expect(res.body.data).toEqual({ cancelled: true })
      expect(await childCount(api, parent)).toBe(0)
      const after = await api.request('GET', `/api/component/outpost/progress/${token}`)
      expect(after.body).toMatchObject({ state: 'failed', error: { status_code: 409, data: { cancelled: true } } })
      // Too late: the job ended; the answer names what it created, so the client can delete it.
      const done = `done${token}`
      const ok = await layerFromFile(api, expect, parent, 'few.geojson', pointsGeojson(5), {}, {}, { 'x-outpost-progress': done })
      expect(ok.status).toBe(201)
      const late = await api.request('DELETE', `/api/component/outpost/progress/${done}`)
      expectError(expect, late, 409, 'nextgisweb.core.exception.OperationalError')
      expect(late.body.data).toEqual({ state: 'done', result: { id: ok.body.id } })
      expectError(expect, await api.request('DELETE', '/api/component/outpost/progress/unknown-token-000000'), 404,
        'nextgisweb.pyramid.exception.PyramidHTTPError')
      // The upload is the client's to delete (the app does when its dialog is cancelled).
      expect((await api.request('DELETE', `/api/component/file_upload/${source.id}`)).status).toBe(204)
    },
  },
  {
    name: 'a 3 MB zip holding 3 GiB of GeoJSON whitespace is a 413 naming the unzipped-size limit; nothing is created',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const source = await uploadFile(api, expect, 'bomb.zip', zipBomb())
      // Refused from the zip's directory, before anything is inflated (GDAL spent 39 s on it before).
      const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: parent }, display_name: uniq('bomb') },
        vector_layer: { srs: { id: 3857 }, source } } })
      expectError(expect, res, 413, 'nextgisweb.file_upload.api.UploadedFileTooLarge')
      expect(res.body.data).toMatchObject({ file: 'bomb.zip', limit: 'unzipped_size', max: 2 * 1024 ** 3 })
      expect(res.body.data.value).toBeGreaterThan(3 * 1024 ** 3)
      expect(res.body.message).toContain('bomb.zip')
      expect(res.body.message).toContain(String(2 * 1024 ** 3))
      expect(await childCount(api, parent)).toBe(0)
      const inspect = await api.request('POST', '/api/component/outpost/ingest/inspect', { body: { source } })
      expectError(expect, inspect, 413, 'nextgisweb.file_upload.api.UploadedFileTooLarge')
    },
  },
  {
    name: 'a zip member that inflates past the size its header declares is a 413 naming it; nothing is created',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      // 1 GiB of whitespace declared as 100 bytes: GDAL inflated all of it (21 s) before.
      const res = await layerFromFile(api, expect, parent, 'liar.zip', lyingZipBomb())
      expectError(expect, res, 413, 'nextgisweb.file_upload.api.UploadedFileTooLarge')
      expect(res.body.data).toMatchObject({ file: 'liar.zip', limit: 'unzipped_size', max: 100 })
      expect(res.body.data.value).toBeGreaterThan(100)
      expect(res.body.message).toContain('liar.geojson')
      expect(await childCount(api, parent)).toBe(0)
    },
  },
]
