import type { ApiCase } from '../harness.ts'
import { uniq } from '../harness.ts'
import { TIFFS } from '../ingest-files.ts'
import { newGroup, uploadFile } from './ingest.ts'
import { expectGolden, tile } from '../render-helpers.ts'

/**
 * Raster styles drawn from the stored COG: TIFFS.rgb is 1° × 1° at 30–31° E, 60–61° N (black)
 * with a square of (200, 100, 50) from 30.2 to 30.8; stored reprojected to EPSG:3857 with alpha.
 * Tile 8/149/73 holds it: lon 30.5 is pixel 176, lat 60.5 pixel 159 (Web Mercator).
 */
async function rasterStyle(api: Parameters<ApiCase['run']>[0], expect: Parameters<ApiCase['run']>[1]) {
  const parent = await newGroup(api, expect)
  const source = await uploadFile(api, expect, 'rgb.tif', await TIFFS.rgb())
  const layer = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'raster_layer', parent: { id: parent }, display_name: uniq('Raster') },
    raster_layer: { srs: { id: 3857 }, source } } })
  expect(layer.status).toBe(201)
  const style = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'raster_style', parent: { id: layer.body.id }, display_name: 'Raster style' } } })
  expect(style.status).toBe(201)
  return style.body.id as number
}

const px = (img: { width: number; data: Uint8Array }, x: number, y: number) => Array.from(img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4))

export const renderRasterCases: ApiCase[] = [
  {
    name: 'draws a raster style from the stored raster: its pixels in place, transparent beyond it, empty tiles by nd',
    async run(api, expect) {
      const style = await rasterStyle(api, expect)
      const img = await tile(api, expect, style, 8, 149, 73)
      expect(px(img, 176, 159)).toEqual([200, 100, 50, 255])
      expect(px(img, 103, 159)).toEqual([0, 0, 0, 255])
      expect(px(img, 48, 159)[3]).toBe(0)
      // A zoomed-out tile reads an overview and still shows the square's colour.
      const out = await tile(api, expect, style, 6, 37, 18)
      expect(out.data.some((v, i) => i % 4 === 3 && v > 0)).toBe(true)
      const empty = await api.request('GET', `/api/component/render/tile?z=8&x=0&y=0&resource=${style}&nd=204`)
      expect(empty.status).toBe(204)
      const legend = await api.request('GET', `/api/resource/${style}/legend_symbols`)
      expect(legend.body).toEqual([])
    },
  },
  {
    name: 'golden image: raster.rgb-square',
    async run(api, expect) {
      expectGolden(expect, api, await tile(api, expect, await rasterStyle(api, expect), 8, 149, 73), 'raster.rgb-square')
    },
  },
]
