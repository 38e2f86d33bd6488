/**
 * The WMS server (issue 26; reference ngw-services §2, §6.3–6.6): the `wmsserver_service`
 * member and its validation; GetCapabilities 1.1.1 in the original's shape and 1.3.0 done right
 * (namespace, CRS, latitude-first EPSG:4326); GetMap pixels in EPSG:3857, EPSG:4326 and CRS:84,
 * both axis orders, PNG and JPEG, scale limits, against the render path's own image;
 * GetFeatureInfo as GeoJSON and HTML; GetLegendGraphic; exceptions as clients read them; and
 * who may use a service (a guest is asked for credentials).
 */
import { decode as decodeJpeg } from 'jpeg-js'
import { XMLParser } from 'fast-xml-parser'
import type { Api, ApiCase, ApiResponse, Expect } from '../harness.ts'
import { uniq } from '../harness.ts'
import { compareImages, decodePng, expectGolden, isColor, makeLayer, makeStyle, pixel, square } from '../render-helpers.ts'
import { createUser, rule } from './permissions.ts'
import { writeArrayBuffer } from 'geotiff'
import { newGroup, uploadFile } from './ingest.ts'

const RED = `<map><layer><class><style><color red="255" green="0" blue="0"/></style></class></layer></map>`
const BLUE = `<map><layer><class><name>Water</name><style><color red="0" green="0" blue="255"/></style></class></layer></map>`
// The original's exact type, no charset (checked against NGW 5.4: docs/ogc.md "Compared with the running original").
const SE_XML = 'application/vnd.ogc.se_xml'

type Layer = { keyname: string; display_name: string; resource_id: number; min_scale_denom?: number | null; max_scale_denom?: number | null }

async function createService(api: Api, expect: Expect, layers: Layer[], permissions: unknown[] = []) {
  const res = await api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'wmsserver_service', parent: { id: 0 }, display_name: uniq('WMS'), description: '<p>Roads &amp; <b>rivers</b></p>', permissions },
    wmsserver_service: { layers } } })
  expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined })
  return res.body.id as number
}

/** A polygon layer with a red square 0…1e6 m (`name` 'a'), its red style, and a blue style of a second square layer. */
async function squares(api: Api, expect: Expect) {
  const fields = [{ keyname: 'name', datatype: 'STRING' }]
  const layer = await makeLayer(api, expect, 'POLYGON', fields, [{ geom: square(0, 0, 1e6, 1e6), fields: { name: 'a' } }])
  const red = await makeStyle(api, expect, layer, RED)
  const other = await makeLayer(api, expect, 'POLYGON', fields, [{ geom: square(5e5, 5e5, 1.5e6, 1.5e6), fields: { name: 'b' } }])
  const blue = await makeStyle(api, expect, other, BLUE)
  return { layer, red, other, blue }
}

const wms = (api: Api, id: number, query: string, auth?: Parameters<Api['request']>[2] extends infer O ? O extends { auth?: infer A } ? A : never : never) =>
  api.request('GET', `/api/resource/${id}/wms?${query}`, { auth })

const getMap = (layers: string, rest: string) => `SERVICE=WMS&REQUEST=GetMap&LAYERS=${layers}&STYLES=&WIDTH=200&HEIGHT=200&FORMAT=image/png&${rest}`

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', isArray: (name) => ['Layer', 'SRS', 'CRS', 'BoundingBox', 'Format'].includes(name) })

/** The code and text of a ServiceExceptionReport. */
function exception(res: ApiResponse): { code?: string; text: string } {
  const doc = xml.parse(res.text) as { ServiceExceptionReport: { ServiceException: { '@code'?: string; '#text'?: string } | string } }
  const e = doc.ServiceExceptionReport.ServiceException
  return typeof e === 'string' ? { text: e } : { code: e['@code'], text: e['#text'] ?? '' }
}

function expectPng(expect: Expect, res: ApiResponse) {
  expect({ status: res.status, type: res.headers['content-type'], text: res.status === 200 ? '' : res.text }).toEqual({ status: 200, type: 'image/png', text: '' })
  return decodePng(res)
}

/**
 * An RGB GeoTIFF written by geotiff.js (no GDAL in the test process): 30–31° E, 60–61° N in 64 px,
 * black with a square of (200, 100, 50) from 30.25 to 30.75; as a raster layer and its style.
 */
async function rasterStyle(api: Api, expect: Expect): Promise<number> {
  const px = new Uint8Array(64 * 64 * 3)
  for (let y = 16; y < 48; y++) for (let x = 16; x < 48; x++) px.set([200, 100, 50], (y * 64 + x) * 3)
  const tif = writeArrayBuffer(Object.assign(px, { width: 64, height: 64 }) as never, { width: 64, height: 64, SamplesPerPixel: 3,
    BitsPerSample: [8, 8, 8], PhotometricInterpretation: 2, PlanarConfiguration: 1, ModelPixelScale: [1 / 64, 1 / 64, 0],
    ModelTiepoint: [0, 0, 0, 30, 61, 0], GTModelTypeGeoKey: 2, GTRasterTypeGeoKey: 1, GeographicTypeGeoKey: 4326 })
  const source = await uploadFile(api, expect, 'square.tif', new Uint8Array(tif))
  const layer = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'raster_layer', parent: { id: await newGroup(api, expect) }, display_name: uniq('Raster') },
    raster_layer: { srs: { id: 3857 }, source } } })
  expect(layer.status).toBe(201)
  const style = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'raster_style', parent: { id: layer.body.id }, display_name: 'Raster style' } } })
  expect(style.status).toBe(201)
  return style.body.id as number
}

export const wmsCases: ApiCase[] = [
  {
    name: 'wms: the member round-trips; bad layers are refused with 422 and change nothing',
    async run(api, expect) {
      const { red, blue, layer } = await squares(api, expect)
      const id = await createService(api, expect, [{ keyname: 'red', display_name: 'Red', resource_id: red }])
      const read = async () => (await api.request('GET', `/api/resource/${id}`)).body.wmsserver_service
      expect(await read()).toEqual({ layers: [{ keyname: 'red', display_name: 'Red', resource_id: red, min_scale_denom: null, max_scale_denom: null }] })
      const two = [{ keyname: 'blue', display_name: 'Blue', resource_id: blue, min_scale_denom: 1000, max_scale_denom: null },
        { keyname: 'red', display_name: 'Red', resource_id: red, min_scale_denom: null, max_scale_denom: 50 }]
      expect((await api.request('PUT', `/api/resource/${id}`, { body: { wmsserver_service: { layers: two } } })).status).toBe(200)
      expect(await read()).toEqual({ layers: two })
      const bad: Array<[unknown, RegExp]> = [
        [{ layers: [{ keyname: '1x', display_name: 'X', resource_id: red }] }, /keyname/],
        [{ layers: [{ keyname: 'x', display_name: '', resource_id: red }] }, /display name/],
        [{ layers: [{ keyname: 'x', display_name: 'X', resource_id: layer }] }, /cannot be drawn/],
        [{ layers: [{ keyname: 'x', display_name: 'X', resource_id: 987654 }] }, /not found/],
        [{ layers: [{ keyname: 'x', display_name: 'X', resource_id: red }, { keyname: 'x', display_name: 'Y', resource_id: blue }] }, /used twice/],
        [{ layers: [{ keyname: 'x', display_name: 'X', resource_id: red }, { keyname: 'y', display_name: 'Y', resource_id: red }] }, /used twice/],
        [{ layers: [{ keyname: 'x', display_name: 'X', resource_id: red, min_scale_denom: -1 }] }, /scale/],
        [{ layers: 'red' }, /array/],
        [{ layers: [], extra: 1 }, /unknown field/],
      ]
      for (const [member, message] of bad) {
        const res = await api.request('PUT', `/api/resource/${id}`, { body: { wmsserver_service: member } })
        expect({ status: res.status, exception: res.body?.exception }).toEqual({ status: 422, exception: 'nextgisweb.core.exception.ValidationError' })
        expect(res.body.message).toMatch(message)
      }
      expect(await read()).toEqual({ layers: two })
      const missing = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'wmsserver_service', parent: { id: 0 }, display_name: uniq('WMS') } } })
      expect(missing.status).toBe(422)
    },
  },
  {
    name: 'wms: capabilities 1.1.1 as the original answers them, with each layer\'s boxes, style and legend; 1.3.0 in its namespace with latitude-first EPSG:4326',
    async run(api, expect) {
      const { red, blue } = await squares(api, expect)
      const id = await createService(api, expect, [{ keyname: 'red', display_name: 'Red <squares>', resource_id: red },
        { keyname: 'blue', display_name: 'Blue', resource_id: blue, min_scale_denom: 5e6, max_scale_denom: 1000 }])
      const res = await wms(api, id, 'SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.1.1')
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/vnd.ogc.wms_xml')
      expect(res.text).toMatch(/^<\?xml version='1.0' encoding='utf-8'\?>\n<!DOCTYPE WMT_MS_Capabilities SYSTEM "http:\/\/schemas.opengis.net\/wms\/1.1.1\/WMS_MS_Capabilities.dtd">/)
      const caps = xml.parse(res.text).WMT_MS_Capabilities
      expect(caps['@version']).toBe('1.1.1')
      expect(caps.Service.Name).toBe('OGC:WMS')
      expect(caps.Service.Abstract).toBe('Roads & rivers')
      const url = caps.Service.OnlineResource['@xlink:href'] as string
      expect(url).toMatch(new RegExp(`/api/resource/${id}/wms$`))
      expect(caps.Capability.Request.GetMap.Format).toEqual(['image/png', 'image/jpeg'])
      expect(caps.Capability.Request.GetMap.DCPType.HTTP.Get.OnlineResource['@xlink:href']).toBe(`${url}?`)
      expect(caps.Capability.Request.GetFeatureInfo.Format).toEqual(['text/html', 'application/json'])
      const root = caps.Capability.Layer[0]
      expect(root.Name).toBeUndefined()
      expect(root.SRS.slice(0, 2)).toEqual(['EPSG:4326', 'EPSG:3857'])
      expect(root.LatLonBoundingBox).toEqual({ '@minx': '-180.000000', '@miny': '-85.051129', '@maxx': '180.000000', '@maxy': '85.051129' })
      const [r, b] = root.Layer
      expect([r.Name, r.Title, r['@queryable'], b.Name]).toEqual(['red', 'Red <squares>', '1', 'blue'])
      // The red square is 0…1e6 m: 0…8.983° E, 0…8.916° N.
      expect(Number(r.LatLonBoundingBox['@maxx'])).toBeCloseTo(8.983153, 5)
      expect(Number(r.LatLonBoundingBox['@maxy'])).toBeCloseTo(8.946574, 5)
      expect(r.BoundingBox[0]).toMatchObject({ '@SRS': 'EPSG:3857', '@minx': '0.000000', '@maxx': '1000000.000000' })
      expect(r.Style.Name).toBe('default')
      const legendHref = r.Style.LegendURL.OnlineResource['@xlink:href'] as string
      expect(legendHref).toBe(`${url}?SERVICE=WMS&VERSION=1.1.1&REQUEST=GetLegendGraphic&LAYER=red&FORMAT=image/png`)
      const legend = expectPng(expect, await api.request('GET', legendHref.slice(legendHref.indexOf('/api/'))))
      expect([legend.width, legend.height]).toEqual([Number(b.Style.LegendURL['@width']) > 0 ? Number(r.Style.LegendURL['@width']) : -1, Number(r.Style.LegendURL['@height'])])
      expect(Number(b.ScaleHint['@min'])).toBeCloseTo(1000 * 0.0254 / 96 * Math.SQRT2, 6)
      expect(r.ScaleHint).toBeUndefined()

      const v13 = await wms(api, id, 'service=WMS&request=GetCapabilities&version=1.3.0')
      expect(v13.headers['content-type']).toBe('text/xml; charset=utf-8')
      const c13 = xml.parse(v13.text).WMS_Capabilities
      expect([c13['@version'], c13['@xmlns'], c13.Service.Name, c13.Service.MaxWidth]).toEqual(['1.3.0', 'http://www.opengis.net/wms', 'WMS', 4096])
      const root13 = c13.Capability.Layer[0]
      expect(root13.CRS.slice(0, 3)).toEqual(['CRS:84', 'EPSG:4326', 'EPSG:3857'])
      const r13 = root13.Layer[0], b13 = root13.Layer[1]
      expect(Number(r13.EX_GeographicBoundingBox.eastBoundLongitude)).toBeCloseTo(8.983153, 5)
      const geo = r13.BoundingBox.find((x: Record<string, string>) => x['@CRS'] === 'EPSG:4326')
      // Latitude first (§6.6): maxx is the northern edge.
      expect(Number(geo['@maxx'])).toBeCloseTo(8.946574, 5)
      expect(Number(geo['@maxy'])).toBeCloseTo(8.983153, 5)
      expect([b13.MinScaleDenominator, b13.MaxScaleDenominator]).toEqual([1000, 5000000])
      // Without VERSION the answer is 1.1.1, and a version between the two is answered with 1.1.1.
      expect((await wms(api, id, 'SERVICE=WMS&REQUEST=GetCapabilities')).text).toContain('<WMT_MS_Capabilities')
      expect((await wms(api, id, 'SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.2.0')).text).toContain('<WMT_MS_Capabilities')
    },
  },
  {
    name: 'wms: GetMap draws the layers in order, first at the bottom, as the render path draws them, in EPSG:3857, EPSG:4326 and the northing-first EPSG:3035 (both axis orders) and CRS:84, as PNG or JPEG, within scale limits',
    async run(api, expect) {
      const { red, blue } = await squares(api, expect)
      const id = await createService(api, expect, [{ keyname: 'red', display_name: 'Red', resource_id: red },
        { keyname: 'blue', display_name: 'Blue', resource_id: blue }, { keyname: 'far', display_name: 'Far', resource_id: (await squares(api, expect)).blue, min_scale_denom: 1e6 }])
      // 0…2e6 m in 200 px: 10 km a pixel; the red square fills the lower left quarter, the blue one is drawn over its corner.
      const opaque = expectPng(expect, await wms(api, id, getMap('red,blue', 'SRS=EPSG:3857&BBOX=0,0,2000000,2000000&VERSION=1.1.1')))
      expect(isColor(pixel(opaque, 20, 180), [255, 0, 0])).toBe(true)
      expect(isColor(pixel(opaque, 80, 120), [0, 0, 255])).toBe(true)
      expect(isColor(pixel(opaque, 180, 20), [255, 255, 255])).toBe(true)
      const under = expectPng(expect, await wms(api, id, getMap('blue,red', 'SRS=EPSG:3857&BBOX=0,0,2000000,2000000')))
      expect(isColor(pixel(under, 80, 120), [255, 0, 0])).toBe(true)
      // Transparent: the render path's own image, pixel for pixel.
      const clear = expectPng(expect, await wms(api, id, getMap('red,blue', 'SRS=EPSG:3857&BBOX=0,0,2000000,2000000&TRANSPARENT=TRUE')))
      expect(pixel(clear, 180, 20)[3]).toBe(0)
      const own = await api.request('GET', `/api/component/render/image?resource=${red},${blue}&extent=0,0,2000000,2000000&size=200,200`)
      expect(compareImages(clear, decodePng(own), { channel: 0, share: 0 }).share).toBe(0)
      expectGolden(expect, api, clear, 'wms.getmap-3857')
      // EPSG:4326: 1.1.1 reads lon,lat; 1.3.0 reads lat,lon; CRS:84 is lon,lat in 1.3.0 too. A 200×100 box tells them apart.
      const q = (v: string) => `SERVICE=WMS&REQUEST=GetMap&LAYERS=red&STYLES=&WIDTH=200&HEIGHT=100&FORMAT=image/png&VERSION=${v}`
      const v111 = expectPng(expect, await wms(api, id, `${q('1.1.1')}&SRS=EPSG:4326&BBOX=0,0,20,10`))
      const v130 = expectPng(expect, await wms(api, id, `${q('1.3.0')}&CRS=EPSG:4326&BBOX=0,0,10,20`))
      const crs84 = expectPng(expect, await wms(api, id, `${q('1.3.0')}&CRS=CRS:84&BBOX=0,0,20,10`))
      expect(isColor(pixel(v111, 40, 50), [255, 0, 0])).toBe(true)
      expect(isColor(pixel(v111, 120, 50), [255, 255, 255])).toBe(true)
      expect(compareImages(v111, v130, { channel: 0, share: 0 }).share).toBe(0)
      expect(compareImages(v111, crs84, { channel: 0, share: 0 }).share).toBe(0)
      // Any EPSG code the index has: UTM 31N around 3° E.
      const utm = expectPng(expect, await wms(api, id, getMap('red', 'SRS=EPSG:32631&BBOX=400000,100000,600000,300000')))
      expect(isColor(pixel(utm, 100, 100), [255, 0, 0])).toBe(true)
      // A projected system whose axes are northing, easting (LAEA Europe): 1.3.0 reads its box northing first, 1.1.1 x,y.
      const laea = (v: string, srs: string, bbox: string) => wms(api, id, `${q(v)}&${srs}=EPSG:3035&BBOX=${bbox}`)
      const xy = expectPng(expect, await laea('1.1.1', 'SRS', '3000000,-2500000,5000000,-1500000'))
      expect(isColor(pixel(xy, 65, 40), [255, 0, 0])).toBe(true)
      expect(isColor(pixel(xy, 180, 50), [255, 0, 0])).toBe(false)
      expect(compareImages(xy, expectPng(expect, await laea('1.3.0', 'CRS', '-2500000,3000000,-1500000,5000000')), { channel: 0, share: 0 }).share).toBe(0)
      expect(compareImages(xy, expectPng(expect, await laea('1.3.0', 'CRS', '3000000,-2500000,5000000,-1500000')), { channel: 0, share: 0 }).share).toBeGreaterThan(0.01)
      const jpeg = await wms(api, id, getMap('red', 'SRS=EPSG:3857&BBOX=0,0,2000000,2000000').replace('image/png', 'image/jpeg'))
      expect(jpeg.headers['content-type']).toBe('image/jpeg')
      const j = decodeJpeg(Buffer.from(jpeg.bodyBase64!, 'base64'), { useTArray: true })
      const at = (x: number, y: number) => Array.from(j.data.subarray((y * j.width + x) * 4, (y * j.width + x) * 4 + 3))
      expect(isColor([...at(20, 180), 255], [255, 0, 0], 12)).toBe(true)
      expect(isColor([...at(180, 20), 255], [255, 255, 255], 12)).toBe(true)
      // Scale limit: 'far' (drawn up to 1:1,000,000) is hidden at 1:37.8M and drawn at 1:378,000.
      const zoomedOut = expectPng(expect, await wms(api, id, getMap('far', 'SRS=EPSG:3857&BBOX=0,0,2000000,2000000&TRANSPARENT=TRUE')))
      expect(zoomedOut.data.every((v, i) => i % 4 !== 3 || v === 0)).toBe(true)
      const zoomedIn = expectPng(expect, await wms(api, id, getMap('far', 'SRS=EPSG:3857&BBOX=600000,600000,620000,620000&TRANSPARENT=TRUE')))
      expect(isColor(pixel(zoomedIn, 100, 100), [0, 0, 255])).toBe(true)
    },
  },
  {
    name: 'wms: GetFeatureInfo answers the features under the pixel as GeoJSON in the request\'s system or as HTML, FEATURE_COUNT in all, X/Y or I/J',
    async run(api, expect) {
      const { red, blue } = await squares(api, expect)
      const id = await createService(api, expect, [{ keyname: 'red', display_name: 'Red', resource_id: red }, { keyname: 'blue', display_name: 'Blue', resource_id: blue }])
      const base = 'SERVICE=WMS&REQUEST=GetFeatureInfo&LAYERS=red,blue&QUERY_LAYERS=red,blue&STYLES=&WIDTH=200&HEIGHT=200&FORMAT=image/png'
      const one = await wms(api, id, `${base}&VERSION=1.1.1&SRS=EPSG:3857&BBOX=0,0,2000000,2000000&X=80&Y=120&INFO_FORMAT=application/json`)
      expect(one.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(one.body.features).toHaveLength(1)
      expect(one.body.features[0]).toMatchObject({ type: 'Feature', id: 'red.1', properties: { name: 'a' }, geometry: { type: 'Polygon' } })
      expect(one.body.crs).toEqual({ type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::3857' } })
      const both = await wms(api, id, `${base}&VERSION=1.1.1&SRS=EPSG:3857&BBOX=0,0,2000000,2000000&X=80&Y=120&INFO_FORMAT=application/json&FEATURE_COUNT=5`)
      expect(both.body.features.map((f: { id: string }) => f.id)).toEqual(['red.1', 'blue.1'])
      const none = await wms(api, id, `${base}&SRS=EPSG:3857&BBOX=0,0,2000000,2000000&X=190&Y=10&INFO_FORMAT=application/json&FEATURE_COUNT=5`)
      expect(none.body.features).toEqual([])
      // 1.3.0: I/J, latitude-first box; the geometry comes in degrees, as the answer's crs says.
      const v13 = await wms(api, id, `${base}&VERSION=1.3.0&CRS=EPSG:4326&BBOX=0,0,20,20&I=20&J=180&INFO_FORMAT=application/json`)
      expect(v13.body.features.map((f: { id: string }) => f.id)).toEqual(['red.1'])
      expect(v13.body.crs.properties.name).toBe('urn:ogc:def:crs:EPSG::4326')
      expect(v13.body.features[0].geometry.coordinates[0]).toContainEqual([expect.closeTo(8.983153, 5), expect.closeTo(8.946574, 5)])
      // Any other INFO_FORMAT (GDAL's default is GML) is the original's HTML.
      const page = await wms(api, id, `${base}&SRS=EPSG:3857&BBOX=0,0,2000000,2000000&X=80&Y=120&INFO_FORMAT=application/vnd.ogc.gml`)
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(page.text).toContain('1. #1 (<em>red</em>)')
      expect(page.text).toMatch(/<tr><th>name<\/th><td>a<\/td><\/tr>/)
    },
  },
  {
    name: 'wms: a raster style is drawn, is not queryable and has an icon for a legend',
    async run(api, expect) {
      const style = await rasterStyle(api, expect)
      const id = await createService(api, expect, [{ keyname: 'dem', display_name: 'Raster', resource_id: style }])
      const caps = xml.parse((await wms(api, id, 'SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.1.1')).text).WMT_MS_Capabilities
      const l = caps.Capability.Layer[0].Layer[0]
      expect([l['@queryable'], l.Style.LegendURL]).toEqual(['0', undefined])
      expect(Number(l.LatLonBoundingBox['@minx'])).toBeCloseTo(30, 1)
      // 30–31° E, 60–61° N with a square of (200, 100, 50) from 30.25 to 30.75.
      const img = expectPng(expect, await wms(api, id, 'SERVICE=WMS&REQUEST=GetMap&VERSION=1.1.1&LAYERS=dem&STYLES=&SRS=EPSG:4326&BBOX=30,60,31,61&WIDTH=100&HEIGHT=100&FORMAT=image/png&TRANSPARENT=TRUE'))
      expect(pixel(img, 50, 50)).toEqual([200, 100, 50, 255])
      const info = await wms(api, id, 'SERVICE=WMS&REQUEST=GetFeatureInfo&VERSION=1.1.1&QUERY_LAYERS=dem&SRS=EPSG:4326&BBOX=30,60,31,61&WIDTH=100&HEIGHT=100&X=50&Y=50')
      expect([info.status, info.headers['content-type'], exception(info)]).toEqual([422, SE_XML,
        { code: 'LayerNotQueryable', text: 'Validation error: Layer \'dem\' not queryable.' }])
      // The original answers a fixed 16 px icon for a raster style's legend (checked against NGW 5.4).
      const legend = expectPng(expect, await wms(api, id, 'SERVICE=WMS&REQUEST=GetLegendGraphic&LAYER=dem'))
      expect([legend.width, legend.height]).toEqual([16, 16])
      expect(pixel(legend, 4, 4)[3]).toBe(255)
      expect(pixel(legend, 0, 0)[3]).toBe(0)
    },
  },
  {
    name: 'wms: errors are ServiceExceptionReports with the error\'s status and OGC code (1.3.0 in the OGC namespace), or images when GetMap asks for them',
    async run(api, expect) {
      const { red } = await squares(api, expect)
      const id = await createService(api, expect, [{ keyname: 'red', display_name: 'Red', resource_id: red }])
      const ok = 'SRS=EPSG:3857&BBOX=0,0,2000000,2000000'
      const cases: Array<[string, number, string | undefined, RegExp]> = [
        [getMap('nope', ok), 422, 'LayerNotDefined', /^Validation error: Unknown layer: 'nope'\.$/],
        [getMap('red', ok).replace('STYLES=', 'STYLES=fancy'), 422, 'StyleNotDefined', /fancy/],
        [getMap('red', ok).replace('image/png', 'image/png; mode=8bit'), 422, 'InvalidFormat', /mode=8bit/],
        [getMap('red', 'SRS=EPSG:999999&BBOX=0,0,1,1'), 422, 'InvalidSRS', /SRS \(id=999999\) not found/],
        [getMap('red', 'SRS=FOO&BBOX=0,0,1,1'), 422, 'InvalidSRS', /^Validation error: Could not recognize SRS format 'FOO'\.$/],
        [getMap('red', 'SRS=EPSG:3857&BBOX=5,0,1,1'), 422, undefined, /BBOX/],
        [getMap('red', 'SRS=EPSG:3857'), 400, 'MissingParameterValue', /'BBOX'/],
        [getMap('red', ok).replace('WIDTH=200', 'WIDTH=100000'), 422, undefined, /WIDTH/],
        [getMap(Array(65).fill('red').join(','), ok), 422, undefined, /Too many layers in LAYERS/],
        ['SERVICE=WMS&REQUEST=GetStuff', 400, 'OperationNotSupported', /GetStuff/],
        ['REQUEST=GetCapabilities', 400, 'InvalidParameterValue', /SERVICE/],
      ]
      for (const [query, status, code, text] of cases) {
        const res = await wms(api, id, query)
        expect({ query, status: res.status, type: res.headers['content-type'] }).toEqual({ query, status, type: SE_XML })
        expect(res.text).toMatch(/^<ServiceExceptionReport version="1.1.1"><ServiceException/)
        const e = exception(res)
        expect({ query, code: e.code }).toEqual({ query, code })
        expect(e.text).toMatch(text)
      }
      const v13 = await wms(api, id, 'SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=red&STYLES=&CRS=EPSG:999999&BBOX=0,0,1,1&WIDTH=10&HEIGHT=10&FORMAT=image/png')
      expect([v13.status, v13.headers['content-type']]).toEqual([422, 'text/xml; charset=utf-8'])
      expect(v13.text).toContain('<ServiceExceptionReport xmlns="http://www.opengis.net/ogc" version="1.3.0"><ServiceException code="InvalidCRS">')
      const inImage = await wms(api, id, `${getMap('nope', ok)}&EXCEPTIONS=application/vnd.ogc.se_inimage`)
      // A 200, as the original's: GDAL and QGIS drop an image that comes with an error status.
      const img = expectPng(expect, inImage)
      expect([img.width, img.height]).toEqual([200, 200])
      expect(img.data.some((v, i) => i % 4 === 3 && v > 0)).toBe(true)
      const blank = expectPng(expect, await wms(api, id, `${getMap('nope', ok)}&EXCEPTIONS=BLANK&VERSION=1.3.0`))
      expect(blank.data.every((v, i) => i % 4 !== 3 || v === 0)).toBe(true)
      // Not a service: a 404 as an exception too.
      const notService = await wms(api, red, 'SERVICE=WMS&REQUEST=GetCapabilities')
      expect([notService.status, notService.headers['content-type']]).toEqual([404, SE_XML])
    },
  },
  {
    name: 'wms: a guest without service.connect is asked for credentials; a user without it is refused; layers are listed and drawn only with data.read',
    async run(api, expect) {
      const { red, blue } = await squares(api, expect)
      const id = await createService(api, expect, [{ keyname: 'red', display_name: 'Red', resource_id: red }, { keyname: 'blue', display_name: 'Blue', resource_id: blue }])
      const caps = 'SERVICE=WMS&REQUEST=GetCapabilities'
      const guest = await wms(api, id, caps, 'guest')
      expect([guest.status, guest.headers['www-authenticate'], guest.text]).toEqual([401, 'Basic realm="Outpost WMS"', ''])
      const u = await createUser(api, expect)
      const refused = await wms(api, id, caps, u.auth)
      expect([refused.status, refused.headers['content-type'], exception(refused).text])
        .toEqual([403, SE_XML, `Insufficient permissions: Insufficient 'connect' permission in scope 'service' on resource id = ${id}.`])
      // Read on the service but no connect: the member is empty.
      const setRules = async (res: number, rules: unknown[]) =>
        expect((await api.request('PUT', `/api/resource/${res}`, { body: { resource: { permissions: rules } } })).status).toBe(200)
      await setRules(id, [rule(u.id, 'resource', 'read')])
      expect((await api.request('GET', `/api/resource/${id}`, { auth: u.auth })).body.wmsserver_service).toEqual({})
      const changed = await api.request('PUT', `/api/resource/${id}`, { auth: u.auth, body: { wmsserver_service: { layers: [] } } })
      expect(changed.status).toBe(403)
      await setRules(id, [rule(u.id, 'resource', 'read'), rule(u.id, 'service', 'connect')])
      expect((await api.request('GET', `/api/resource/${id}`, { auth: u.auth })).body.wmsserver_service.layers).toHaveLength(2)
      // data.read on the red style only.
      const layerOf = async (style: number) => (await api.request('GET', `/api/resource/${style}`)).body.resource.parent.id as number
      await setRules(await layerOf(red), [rule(u.id, 'resource', 'read'), rule(u.id, 'data', 'read')])
      const listed = xml.parse((await wms(api, id, caps, u.auth)).text).WMT_MS_Capabilities.Capability.Layer[0].Layer
      expect(listed.map((l: { Name: string }) => l.Name)).toEqual(['red'])
      expectPng(expect, await wms(api, id, getMap('red', 'SRS=EPSG:3857&BBOX=0,0,2000000,2000000'), u.auth))
      const denied = await wms(api, id, getMap('red,blue', 'SRS=EPSG:3857&BBOX=0,0,2000000,2000000'), u.auth)
      expect([denied.status, denied.headers['content-type'], exception(denied).text])
        .toEqual([403, SE_XML, `Insufficient permissions: Insufficient 'read' permission in scope 'data' on resource id = ${blue}.`])
      const legend = await wms(api, id, 'SERVICE=WMS&REQUEST=GetLegendGraphic&LAYER=blue', u.auth)
      expect(legend.status).toBe(403)
    },
  },
]
