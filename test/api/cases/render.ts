import type { ApiCase } from '../harness.ts'
import { base64, expectError } from '../harness.ts'
import { at, decodePng, isColor, makeLayer, makeStyle, pixel, square, T, tile } from '../render-helpers.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const RES_NOT_FOUND = 'nextgisweb.resource.exception.ResourceNotFound'

const FIELDS = [{ keyname: 'kind', datatype: 'STRING' }, { keyname: 'num', datatype: 'INTEGER' }, { keyname: 'name', datatype: 'STRING' }]
const RED = [230, 20, 20]
const BLUE = [20, 20, 230]

/** Two classes: kind = "a" red, num > 5 blue; outlines grey. */
const TWO_CLASSES = `<map><layer><classitem>kind</classitem>
  <class><name>Kind A</name><expression>"a"</expression><style><color red="230" green="20" blue="20"/></style></class>
  <class><name>Big</name><expression>([num] gt 5)</expression><style><color red="20" green="20" blue="230"/></style></class>
</layer></map>`

/** Polygon A (kind a) around pixel (50, 50), polygon B (num 7) around pixel (150, 150), C matches nothing. */
async function seed(api: Parameters<ApiCase['run']>[0], expect: Parameters<ApiCase['run']>[1]) {
  const [ax0, ay1] = at(30, 30), [ax1, ay0] = at(70, 70)
  const [bx0, by1] = at(130, 130), [bx1, by0] = at(170, 170)
  const [cx0, cy1] = at(200, 20), [cx1, cy0] = at(240, 60)
  return makeLayer(api, expect, 'POLYGON', FIELDS, [
    { geom: square(ax0, ay0, ax1, ay1), fields: { kind: 'a', num: 1, name: 'A' } },
    { geom: square(bx0, by0, bx1, by1), fields: { kind: 'b', num: 7, name: 'B' } },
    { geom: square(cx0, cy0, cx1, cy1), fields: { kind: 'c', num: 2, name: 'C' } },
  ])
}

export const renderCases: ApiCase[] = [
  {
    name: 'creates an engine style under a vector layer and reads its XML back; mapserver_style is accepted on input',
    async run(api, expect) {
      const layer = await seed(api, expect)
      const id = await makeStyle(api, expect, layer, TWO_CLASSES)
      const res = await api.request('GET', `/api/resource/${id}`)
      expect(res.body.resource.cls).toBe('engine_style')
      expect(res.body.resource.interfaces).toContain('IRenderableStyle')
      expect(res.body.engine_style.xml).toBe(TWO_CLASSES)
      const alias = await api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'mapserver_style', parent: { id: layer }, display_name: 'Original name' },
        mapserver_style: { xml: TWO_CLASSES } } })
      expect(alias.status).toBe(201)
      expect((await api.request('GET', `/api/resource/${alias.body.id}`)).body.resource.cls).toBe('engine_style')
      // Without xml a default style for the layer's geometry is made.
      const def = await makeStyle(api, expect, layer)
      expect((await api.request('GET', `/api/resource/${def}`)).body.engine_style.xml).toContain('<class>')
    },
  },
  {
    name: 'the original\'s spellings on input: mapserver_style on change, in a preview and in search filters; both spellings at once are a 422 that changes nothing',
    async run(api, expect) {
      const layer = await seed(api, expect)
      const style = await makeStyle(api, expect, layer, TWO_CLASSES)
      const RED_ONLY = '<map><layer><class><style><color red="230" green="20" blue="20"/></style></class></layer></map>'
      expect((await api.request('PUT', `/api/resource/${style}`, { body: { mapserver_style: { xml: RED_ONLY } } })).status).toBe(200)
      expect((await api.request('GET', `/api/resource/${style}`)).body.engine_style.xml).toBe(RED_ONLY)
      // One member in both spellings: which one was meant cannot be told.
      const both = await api.request('PUT', `/api/resource/${style}`, { body: { engine_style: { xml: TWO_CLASSES }, mapserver_style: { xml: TWO_CLASSES } } })
      expectError(expect, both, 422, VALIDATION)
      expect(both.body.message).toContain('`engine_style`')
      expect(both.body.message).toContain('`mapserver_style`')
      expect((await api.request('GET', `/api/resource/${style}`)).body.engine_style.xml).toBe(RED_ONLY)
      const twice = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'mapserver_style', parent: { id: layer }, display_name: 'Twice' },
        engine_style: { xml: TWO_CLASSES }, mapserver_style: { xml: TWO_CLASSES } } })
      expectError(expect, twice, 422, VALIDATION)
      expect((await api.request('GET', `/api/resource/?parent=${layer}`)).body.map((r: { resource: { id: number } }) => r.resource.id)).toEqual([style])
      // The preview takes the member in the original's spelling too: polygon A is drawn red.
      const [x0, y1] = at(0, 0), [x1, y0] = at(256, 256)
      const preview = await api.request('POST', '/api/component/outpost/render/preview', { body: {
        layer: { id: layer }, extent: [x0, y0, x1, y1], size: [256, 256], mapserver_style: { xml: RED_ONLY } } })
      expect(preview.status).toBe(200)
      expect(isColor(pixel(decodePng(preview), 50, 50), RED)).toBe(true)
      // Filters take either spelling of a class.
      for (const q of ['cls=mapserver_style', 'cls=engine_style', 'cls__in=mapserver_style,vector_layer']) {
        const found = await api.request('GET', `/api/resource/search/?parent_id=${layer}&${q}`)
        expect(found.body.map((r: { resource: { id: number } }) => r.resource.id)).toEqual([style])
      }
    },
  },
  {
    name: 'rejects a style that cannot be parsed with a 422 that says where',
    async run(api, expect) {
      const layer = await seed(api, expect)
      const post = (xml: string) => api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'engine_style', parent: { id: layer }, display_name: 'Bad' }, engine_style: { xml } } })
      const broken = await post('<map><layer><class></layer></map>')
      expectError(expect, broken, 422, VALIDATION)
      expect(broken.body.message).toMatch(/line 1/)
      expect(broken.body.message).toContain('$.engine_style.xml')
      const expr = await post('<map><layer><class><expression>([num] gt )</expression><style><color red="1" green="2" blue="3"/></style></class></layer></map>')
      expectError(expect, expr, 422, VALIDATION)
      expect(expr.body.message).toContain('/map/layer/class[1]/expression')
      const colour = await post('<map><layer><class><style><color red="300" green="2" blue="3"/></style></class></layer></map>')
      expectError(expect, colour, 422, VALIDATION)
      expect(colour.body.message).toContain('/map/layer/class[1]/style[1]')
      // A style must live under a feature layer.
      const group = await api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'engine_style', parent: { id: 0 }, display_name: 'Orphan' }, engine_style: { xml: TWO_CLASSES } } })
      expectError(expect, group, 422, 'nextgisweb.resource.exception.HierarchyError')
      // Nothing was created by the failed requests.
      const children = await api.request('GET', `/api/resource/?parent=${layer}`)
      expect(children.body).toEqual([])
    },
  },
  {
    name: 'draws a tile with the class each feature matches, transparent elsewhere',
    async run(api, expect) {
      const layer = await seed(api, expect)
      const style = await makeStyle(api, expect, layer, TWO_CLASSES)
      const img = await tile(api, expect, style, T.z, T.x, T.y)
      expect(img.width).toBe(256)
      expect(isColor(pixel(img, 50, 50), RED)).toBe(true)
      expect(isColor(pixel(img, 150, 150), BLUE)).toBe(true)
      expect(pixel(img, 220, 40)[3]).toBe(0)
      expect(pixel(img, 100, 10)[3]).toBe(0)
    },
  },
  {
    name: 'answers an empty tile as nd asks: a transparent PNG, 204 or 404; and reads GDAL 3.6 URLs with &amp;',
    async run(api, expect) {
      const layer = await seed(api, expect)
      const style = await makeStyle(api, expect, layer, TWO_CLASSES)
      const empty = await tile(api, expect, style, 4, 0, 0)
      expect(empty.data.every((v, i) => i % 4 !== 3 || v === 0)).toBe(true)
      const r204 = await api.request('GET', `/api/component/render/tile?z=4&x=0&y=0&resource=${style}&nd=204`)
      expect(r204.status).toBe(204)
      expect(r204.text).toBe('')
      const r404 = await api.request('GET', `/api/component/render/tile?z=4&x=0&y=0&resource=${style}&nd=404`)
      expect(r404.status).toBe(404)
      expect(r404.text).toBe('')
      const gdal = await api.request('GET', `/api/component/render/tile?z=${T.z}&amp;x=${T.x}&amp;y=${T.y}&amp;resource=${style}`)
      expect(gdal.status).toBe(200)
      expect(isColor(pixel(decodePng(gdal), 50, 50), RED)).toBe(true)
      const bad = await api.request('GET', `/api/component/render/tile?z=4&x=0&y=0&resource=${style}&nd=500`)
      expectError(expect, bad, 422, VALIDATION)
    },
  },
  {
    name: 'refuses what cannot be rendered: a layer is 422, a missing style 404, bad tile numbers 422',
    async run(api, expect) {
      const layer = await seed(api, expect)
      const res = await api.request('GET', `/api/component/render/tile?z=0&x=0&y=0&resource=${layer}`)
      expectError(expect, res, 422, VALIDATION)
      expect(res.body.message).toBe(`Resource (ID=${layer}) cannot be rendered.`)
      expectError(expect, await api.request('GET', '/api/component/render/tile?z=0&x=0&y=0&resource=987654'), 404, RES_NOT_FOUND)
      expectError(expect, await api.request('GET', `/api/component/render/tile?z=2&x=4&y=0&resource=${layer}`), 422, VALIDATION)
      expectError(expect, await api.request('GET', '/api/component/render/tile?z=0&x=0&y=0'), 422, VALIDATION)
    },
  },
  {
    name: 'any edit of the layer or the style invalidates the cached tile; the cache counts what it answered and what was drawn',
    async run(api, expect) {
      const stats = async () => {
        const res = await api.request('GET', '/api/component/outpost/render/tile_cache')
        expect(res.status).toBe(200)
        return res.body as { tiles: number; bytes: number; hits: number; misses: number }
      }
      const layer = await seed(api, expect)
      const style = await makeStyle(api, expect, layer, TWO_CLASSES)
      const s0 = await stats()
      expect(isColor(pixel(await tile(api, expect, style, T.z, T.x, T.y), 50, 50), RED)).toBe(true)
      // Cached: the same answer again, not drawn again.
      expect(isColor(pixel(await tile(api, expect, style, T.z, T.x, T.y), 50, 50), RED)).toBe(true)
      const s1 = await stats()
      expect([s1.misses - s0.misses, s1.hits - s0.hits]).toEqual([1, 1])
      expect(s1.tiles).toBeGreaterThan(0)
      expect(s1.bytes).toBeGreaterThan(0)
      const list = await api.request('GET', `/api/resource/${layer}/feature/?fld_kind=a`)
      const fid = list.body[0].id
      expect((await api.request('PUT', `/api/resource/${layer}/feature/${fid}`, { body: { fields: { kind: 'z', num: 9 } } })).status).toBe(200)
      expect(isColor(pixel(await tile(api, expect, style, T.z, T.x, T.y), 50, 50), BLUE)).toBe(true)
      expect((await stats()).misses - s1.misses).toBe(1)
      expectError(expect, await api.request('GET', '/api/component/outpost/render/tile_cache', { auth: 'guest' }), 403,
        'nextgisweb.core.exception.ForbiddenError')
      const green = TWO_CLASSES.replace('red="20" green="20" blue="230"', 'red="20" green="200" blue="20"')
      expect((await api.request('PUT', `/api/resource/${style}`, { body: { engine_style: { xml: green } } })).status).toBe(200)
      expect(isColor(pixel(await tile(api, expect, style, T.z, T.x, T.y), 50, 50), [20, 200, 20])).toBe(true)
      // cache=false draws from scratch and agrees.
      expect(isColor(pixel(await tile(api, expect, style, T.z, T.x, T.y, '&cache=false'), 50, 50), [20, 200, 20])).toBe(true)
    },
  },
  {
    name: 'symbols[ID] draws only the listed classes and filter[ID] only the matching features',
    async run(api, expect) {
      const layer = await seed(api, expect)
      const style = await makeStyle(api, expect, layer, TWO_CLASSES)
      const only1 = await tile(api, expect, style, T.z, T.x, T.y, `&symbols[${style}]=1`)
      expect(pixel(only1, 50, 50)[3]).toBe(0)
      expect(isColor(pixel(only1, 150, 150), BLUE)).toBe(true)
      const range = await tile(api, expect, style, T.z, T.x, T.y, `&symbols[${style}]=0-1`)
      expect(isColor(pixel(range, 50, 50), RED)).toBe(true)
      const filter = encodeURIComponent(JSON.stringify(['all', ['==', ['get', 'name'], 'B']]))
      const filtered = await tile(api, expect, style, T.z, T.x, T.y, `&filter[${style}]=${filter}`)
      expect(pixel(filtered, 50, 50)[3]).toBe(0)
      expect(isColor(pixel(filtered, 150, 150), BLUE)).toBe(true)
      const bad = await api.request('GET', `/api/component/render/tile?z=0&x=0&y=0&resource=${style}&filter[${style}]=${encodeURIComponent('["nope"]')}`)
      expectError(expect, bad, 422, VALIDATION)
      expect(bad.body.data.location).toEqual(['query', `filter[${style}]`])
    },
  },
  {
    name: 'draws several styles lower to upper into one image for an extent and size in any known SRS',
    async run(api, expect) {
      const layer = await seed(api, expect)
      const lower = await makeStyle(api, expect, layer, TWO_CLASSES)
      const upper = await makeStyle(api, expect, layer,
        '<map><layer><class><expression>([num] lt 2)</expression><style><color red="20" green="200" blue="20"/></style></class></layer></map>')
      const [x0, y1] = at(0, 0), [x1, y0] = at(255, 255)
      const half = 0.5 * T.px
      const extent = [x0 - half, y0 - half, x1 + half, y1 + half].join(',')
      const res = await api.request('GET', `/api/component/render/image?extent=${extent}&size=128,128&resource=${lower},${upper}`)
      expect(res.status).toBe(200)
      const img = decodePng(res)
      expect(img.width).toBe(128)
      expect(isColor(pixel(img, 25, 25), [20, 200, 20])).toBe(true)
      expect(isColor(pixel(img, 75, 75), BLUE)).toBe(true)
      // The same extent in degrees (EPSG:4326).
      const deg = (m: number) => (m / 20037508.342789244) * 180
      const lat = (m: number) => (Math.atan(Math.exp((m / 20037508.342789244) * Math.PI)) * 360) / Math.PI - 90
      const geo = [deg(x0 - half), lat(y0 - half), deg(x1 + half), lat(y1 + half)].join(',')
      const r4326 = await api.request('GET', `/api/component/render/image?extent=${geo}&size=256,256&srs=4326&resource=${lower}`)
      expect(r4326.status).toBe(200)
      expect(isColor(pixel(decodePng(r4326), 150, 150), BLUE)).toBe(true)
      const bad = await api.request('GET', `/api/component/render/image?extent=1,2,3&size=10,10&resource=${lower}`)
      expectError(expect, bad, 422, VALIDATION)
      const big = await api.request('GET', `/api/component/render/image?extent=0,0,1,1&size=10000,10&resource=${lower}`)
      expectError(expect, big, 422, VALIDATION)
    },
  },
  {
    name: 'lists legend symbols per class with a PNG icon in its colours, and draws the legend image',
    async run(api, expect) {
      const layer = await seed(api, expect)
      const style = await makeStyle(api, expect, layer, TWO_CLASSES)
      const res = await api.request('GET', `/api/resource/${style}/legend_symbols?icon_size=20`)
      expect(res.status).toBe(200)
      expect(res.body.map((s: { display_name: string; index: number }) => [s.index, s.display_name])).toEqual([[0, 'Kind A'], [1, 'Big']])
      const icon = decodePng({ ...res, bodyBase64: res.body[1].icon.data })
      expect(icon.width).toBe(20)
      expect(isColor(pixel(icon, 10, 10), BLUE)).toBe(true)
      const all = await api.request('GET', `/api/component/render/legend_symbols?resources=${style}`)
      expect(all.body.items[0].resource).toEqual({ id: style })
      expect(all.body.items[0].legend_symbols).toHaveLength(2)
      const legend = await api.request('GET', `/api/resource/${style}/legend`)
      expect(legend.headers['content-type']).toBe('image/png')
      const img = decodePng(legend)
      expect(img.height).toBeGreaterThanOrEqual(40)
      expect(isColor(pixel(img, 10, 2 + 22 + 11), BLUE)).toBe(true)
      void base64
    },
  },
  {
    name: 'previews an unsaved style over its layer, and answers a broken one with a 422 that says where',
    async run(api, expect) {
      const layer = await seed(api, expect)
      const [x0, y1] = at(0, 0), [x1, y0] = at(255, 255)
      const half = 0.5 * T.px
      const body = (xml: string, id = layer) => ({ layer: { id }, extent: [x0 - half, y0 - half, x1 + half, y1 + half], size: [256, 256],
        engine_style: { xml } })
      const res = await api.request('POST', '/api/component/outpost/render/preview', { body: body(TWO_CLASSES) })
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('image/png')
      const img = decodePng(res)
      expect(isColor(pixel(img, 50, 50), RED)).toBe(true)
      expect(isColor(pixel(img, 150, 150), BLUE)).toBe(true)
      const bad = await api.request('POST', '/api/component/outpost/render/preview', { body: body('<map><layer><class><style><color red="1"/></style></class></layer></map>') })
      expectError(expect, bad, 422, VALIDATION)
      expect(bad.body.message).toContain('/map/layer/class[1]/style[1]')
      expectError(expect, await api.request('POST', '/api/component/outpost/render/preview', { body: body(TWO_CLASSES, 987654) }), 404, RES_NOT_FOUND)
      // Nothing was saved: the layer has no style.
      expect((await api.request('GET', `/api/resource/?parent=${layer}`)).body).toEqual([])
    },
  },
]
