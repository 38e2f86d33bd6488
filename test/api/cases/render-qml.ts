import { readFileSync } from 'node:fs'
import type { Api, ApiCase, Expect } from '../harness.ts'
import { base64, expectError } from '../harness.ts'
import { at, isColor, makeLayer, pixel, square, T, tile } from '../render-helpers.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const FIELDS = [{ keyname: 'kind', datatype: 'STRING' }, { keyname: 'num', datatype: 'INTEGER' }, { keyname: 'name', datatype: 'STRING' }]
const RED = [230, 20, 20], BLUE = [20, 20, 230], GREEN = [20, 200, 20]

export const fixture = (name: string) => readFileSync(new URL(`../../fixtures/styles/${name}`, import.meta.url), 'utf8')

/** A (kind a, num 1) at pixels 30–70, B (kind b, num 7) at 130–170, C (kind c, num 2) at 200–240 × 20–60. */
export async function seedPolygons(api: Api, expect: Expect) {
  const sq = (i0: number, j0: number, i1: number, j1: number) => {
    const [x0, y1] = at(i0, j0), [x1, y0] = at(i1, j1)
    return square(x0, y0, x1, y1)
  }
  return makeLayer(api, expect, 'POLYGON', FIELDS, [
    { geom: sq(30, 30, 70, 70), fields: { kind: 'a', num: 1, name: 'A' } },
    { geom: sq(130, 130, 170, 170), fields: { kind: 'b', num: 7, name: 'B' } },
    { geom: sq(200, 20, 240, 60), fields: { kind: 'c', num: 2, name: 'C' } },
  ])
}

export async function qmlStyle(api: Api, expect: Expect, layer: number, qml?: string, status = 201) {
  let member: unknown = {}
  if (qml !== undefined) {
    const up = await api.request('POST', '/api/component/file_upload/', { form: [{ name: 'file', filename: 'style.qml', type: 'text/xml', base64: base64(qml) }] })
    expect(up.status).toBe(200)
    member = { file_upload: up.body.upload_meta[0] }
  }
  const res = await api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'qgis_vector_style', parent: { id: layer }, display_name: `QML ${Math.random()}` }, qgis_vector_style: member } })
  expect(res.status).toBe(status)
  return res
}

export const renderQmlCases: ApiCase[] = [
  {
    name: 'creates a QGIS style from an uploaded .qml and serves the file back at /qml',
    async run(api, expect) {
      const layer = await seedPolygons(api, expect)
      const qml = fixture('categorized.qml')
      const id = (await qmlStyle(api, expect, layer, qml)).body.id
      const res = await api.request('GET', `/api/resource/${id}`)
      expect(res.body.resource.cls).toBe('qgis_vector_style')
      expect(res.body.qgis_vector_style).toEqual({ svg_marker_library: null })
      const file = await api.request('GET', `/api/resource/${id}/qml`)
      expect(file.status).toBe(200)
      expect(file.text).toBe(qml)
      const legend = await api.request('GET', `/api/resource/${id}/legend_symbols`)
      expect(legend.body.map((s: { display_name: string }) => s.display_name)).toEqual(['Kind A', 'Kind B', 'Other'])
    },
  },
  {
    name: 'draws the categorized renderer: each value its symbol, other values the empty category (hatched)',
    async run(api, expect) {
      const layer = await seedPolygons(api, expect)
      const id = (await qmlStyle(api, expect, layer, fixture('categorized.qml'))).body.id
      const img = await tile(api, expect, id, T.z, T.x, T.y)
      expect(isColor(pixel(img, 40, 40), RED)).toBe(true)
      expect(isColor(pixel(img, 138, 162), BLUE)).toBe(true)
      // C is hatched: some of its pixels are green, some are not drawn.
      let green = 0, clear = 0
      for (let j = 25; j < 55; j++) for (let i = 205; i < 235; i++) {
        const p = pixel(img, i, j)
        if (p[3]! > 100 && p[1]! > p[0]! + 60 && p[1]! > p[2]! + 60) green++
        else if (p[3] === 0) clear++
      }
      expect(green).toBeGreaterThan(50)
      expect(clear).toBeGreaterThan(300)
    },
  },
  {
    name: 'draws the graduated renderer with symbol opacity and pixel-unit outlines',
    async run(api, expect) {
      const layer = await seedPolygons(api, expect)
      const id = (await qmlStyle(api, expect, layer, fixture('graduated.qml'))).body.id
      const img = await tile(api, expect, id, T.z, T.x, T.y)
      const a = pixel(img, 50, 50)
      expect(a[3]).toBeGreaterThan(100)
      expect(a[3]).toBeLessThan(160)
      expect(isColor(pixel(img, 150, 150), BLUE)).toBe(true)
      expect(isColor(pixel(img, 130, 150), [255, 255, 0], 30)).toBe(true)
    },
  },
  {
    name: 'draws the rule-based renderer: nested rules, IN, IS NULL, functions, ELSE, several rules per feature',
    async run(api, expect) {
      const layer = await seedPolygons(api, expect)
      const id = (await qmlStyle(api, expect, layer, fixture('rules.qml'))).body.id
      const img = await tile(api, expect, id, T.z, T.x, T.y)
      expect(isColor(pixel(img, 50, 50), RED)).toBe(true)
      expect(isColor(pixel(img, 30, 50), [255, 255, 0], 30)).toBe(true)
      expect(isColor(pixel(img, 150, 150), BLUE)).toBe(true)
      expect(isColor(pixel(img, 220, 40), GREEN)).toBe(true)
      const legend = await api.request('GET', `/api/resource/${id}/legend_symbols`)
      expect(legend.body.map((s: { display_name: string }) => s.display_name)).toEqual(['Many B', 'Named A', 'Else', 'Yellow edge on A'])
    },
  },
  {
    name: 'makes a default single-symbol QGIS style without a file, and refuses broken or raster QML with a 422 that says where',
    async run(api, expect) {
      const layer = await seedPolygons(api, expect)
      const id = (await qmlStyle(api, expect, layer)).body.id
      const qml = await api.request('GET', `/api/resource/${id}/qml`)
      expect(qml.text).toContain('singleSymbol')
      const img = await tile(api, expect, id, T.z, T.x, T.y)
      expect(pixel(img, 50, 50)[3]).toBe(255)
      const broken = await qmlStyle(api, expect, layer, '<qgis><renderer-v2 type="singleSymbol"></qgis>', 422)
      expectError(expect, broken, 422, VALIDATION)
      expect(broken.body.message).toContain('line 1')
      const raster = await qmlStyle(api, expect, layer, '<qgis><pipe><rasterrenderer type="multibandcolor"/></pipe></qgis>', 422)
      expect(raster.body.message).toContain('not a vector layer style')
      const expr = await qmlStyle(api, expect, layer, fixture('rules.qml').replace('IN (', 'IN ((('), 422)
      expect(expr.body.message).toContain('/qgis/renderer-v2/rules/rule[2]')
      const missing = await api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'qgis_vector_style', parent: { id: layer }, display_name: 'Missing upload' },
        qgis_vector_style: { file_upload: { id: '00000000000000000000000000000000' } } } })
      expectError(expect, missing, 422, 'nextgisweb.file_upload.model.FileUploadNotFound')
      // An engine style has no QML.
      const engine = await api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'engine_style', parent: { id: layer }, display_name: 'XML' } } })
      expect((await api.request('GET', `/api/resource/${engine.body.id}/qml`)).status).toBe(404)
    },
  },
]
