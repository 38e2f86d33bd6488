import { expect, test, type Page } from '@playwright/test'
import { build, type Rolldown } from 'vite'
import { decode } from 'fast-png'
import { gotoControlled, swApi, SW_ADMIN_PASSWORD } from './helpers.ts'

// NextGIS's web-map client in Chromium: `@nextgis/webmap`'s WebMap with `@nextgis/ngw-kit`'s
// web-map adapter and `@nextgis/ngw-connector` (1.19.6, bundled here into a test page with
// vite) loads our web map from the service worker and draws its layers with OpenLayers — one
// through the kit's image adapter (`render/image` with the kit's parameters), one through its
// tile adapter at 50 % transparency. The pixels show both, each where its data is. The map
// adapter under WebMap is the spec's own (test/e2e/ngw-kit-page/ol-adapter.ts: NextGIS's is not
// on npm for 1.19).

const SIZE = 400

/** The test page as one script (an IIFE): the kit, its connector, WebMap, OpenLayers. */
async function bundle(): Promise<string> {
  const out = await build({ configFile: false, logLevel: 'warn', define: { 'process.env.NODE_ENV': '"production"' },
    build: { write: false, minify: false, target: 'es2022', lib: { entry: 'test/e2e/ngw-kit-page/page.ts', formats: ['iife'], name: 'ngwKitPage' } } })
  const chunk = (Array.isArray(out) ? out[0]! : out as Rolldown.RolldownOutput).output[0]
  return chunk.code
}

/** The colour of the kit's map at (x, y), its own canvas pixels as the screen shows them. */
async function pixels(page: Page): Promise<(x: number, y: number) => [number, number, number]> {
  const png = decode(await page.locator('#kit-map').screenshot())
  return (x, y) => {
    const i = (y * png.width + x) * png.channels
    return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!]
  }
}

test('ngw-kit draws our web map in Chromium: its image and tile layers, each in its place, with its transparency', async ({ page }) => {
  const script = await bundle()
  await gotoControlled(page)
  // A page the worker controls that is not the app: the kit's map is the only one here.
  await page.goto('/api/component/pyramid/route')
  const api = swApi(page)
  const post = async (body: unknown) => {
    const res = await api.request('POST', '/api/resource/', { body })
    expect(res.status).toBe(201)
    return res.body.id as number
  }
  /** A polygon layer of one square (EPSG:3857 metres) with a style filling it in `rgb`. */
  const square = async (name: string, [x0, y0, x1, y1]: number[], [r, g, b]: number[]) => {
    const layer = await post({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POLYGON', fields: [] } })
    const res = await api.request('POST', `/api/resource/${layer}/feature/`,
      { body: { geom: `POLYGON((${x0} ${y0},${x1} ${y0},${x1} ${y1},${x0} ${y1},${x0} ${y0}))` } })
    expect(res.status).toBe(200)
    return post({ resource: { cls: 'engine_style', parent: { id: layer }, display_name: `${name} style` },
      engine_style: { xml: `<map><layer><class><style><color red="${r}" green="${g}" blue="${b}"/></style></class></layer></map>` } })
  }
  // West: red, drawn as an image; east: blue, drawn as tiles at half transparency. A gap between.
  const west = await square('Kit west', [-2_000_000, -1_000_000, -200_000, 1_000_000], [220, 0, 0])
  const east = await square('Kit east', [200_000, -1_000_000, 2_000_000, 1_000_000], [0, 0, 220])
  const webmap = await post({ resource: { cls: 'webmap', parent: { id: 0 }, display_name: 'Kit map' },
    webmap: { initial_extent: [-20, -10, 20, 10], root_item: { item_type: 'root', children: [
      { item_type: 'layer', display_name: 'West', layer_style_id: west, layer_adapter: 'image', layer_enabled: true, layer_transparency: 0 },
      { item_type: 'layer', display_name: 'East', layer_style_id: east, layer_adapter: 'tile', layer_enabled: true, layer_transparency: 50 }] } } })

  // Logged in as a person is in their browser: the images and tiles the kit's layers ask for carry the session.
  const login = await page.evaluate(async (password) => (await fetch('/api/component/auth/login', { method: 'POST',
    headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'administrator', password }) })).status, SW_ADMIN_PASSWORD)
  expect(login).toBe(200)
  await page.addScriptTag({ content: script })
  const drawn = await page.evaluate((o) => (window as any).drawWebmap(o),
    { webmap, login: 'administrator', password: SW_ADMIN_PASSWORD, size: SIZE })
  // The kit read the web map's extent and fitted the map to it.
  expect(drawn.bounds).toEqual([-20, -10, 20, 10])
  // One OpenLayers layer per web-map layer, with the item's transparency as its opacity.
  expect([...drawn.opacities].sort()).toEqual([0.5, 1])

  const at = await pixels(page)
  // The view is 40° wide over 400 px: 1 px ≈ 11 km. West's square spans x ≈ 20–182 px, east's 218–380 px.
  const [westX, eastX, midX, y] = [100, 300, SIZE / 2, SIZE / 2]
  const red = at(westX, y), blue = at(eastX, y)
  expect(red[0]).toBeGreaterThan(180)
  expect(red[1] + red[2]).toBeLessThan(60)
  // Half transparent over white: the blue channel full, red and green about half.
  expect(blue[2]).toBeGreaterThan(200)
  expect(blue[0]).toBeGreaterThan(90)
  expect(blue[0]).toBeLessThan(170)
  // Between the squares and above them: nothing drawn (the page's white).
  for (const [x, yy] of [[midX, y], [westX, 20], [eastX, SIZE - 20]] as const) expect(at(x, yy)).toEqual([255, 255, 255])
})
