import { expect, test, type Page } from '@playwright/test'
import { firstLogin, openApp } from './ui-steps.ts'
import { countColor, settle } from './map-steps.ts'

// Points in a crowded vector tile (more than 1,000) are drawn as dots without labels, so a
// big point layer pans smoothly (docs/benchmarks.md, "Map panning"); a few points keep theirs.

const Z = 12
const HALF = 20037508.342789244
const TEXT = '#1c2329'

/** The centre of the zoom-12 tile holding lon/lat, in lon/lat and in EPSG:3857. */
function tileCentre(lon: number, lat: number) {
  const size = (2 * HALF) / 2 ** Z
  const mx = (lon * HALF) / 180, my = Math.log(Math.tan(((90 + lat) * Math.PI) / 360)) * (HALF / Math.PI)
  const cx = (Math.floor((mx + HALF) / size) + 0.5) * size - HALF, cy = HALF - (Math.floor((HALF - my) / size) + 0.5) * size
  return { lon: (cx / HALF) * 180, lat: (Math.atan(Math.exp((cy / HALF) * Math.PI)) * 360) / Math.PI - 90, xy: [cx, cy] as [number, number] }
}

/** A labelled point layer of `count` points within ±0.012° of a place (one tile at zoom 12). */
const pointLayer = (page: Page, name: string, count: number, at: { lon: number; lat: number }) => page.evaluate(async ({ name, count, at }) => {
  const send = async (url: string, method: string, body: unknown) =>
    (await fetch(url, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json()
  const { id } = await send('/api/resource/', 'POST', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
    vector_layer: { srs: { id: 4326 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING', label_field: true }] } })
  const side = Math.ceil(Math.sqrt(count))
  await send(`/api/resource/${id}/feature/`, 'PATCH', Array.from({ length: count }, (_, i) => ({
    geom: `POINT(${at.lon - 0.012 + (0.024 * (i % side)) / side} ${at.lat - 0.012 + (0.024 * Math.floor(i / side)) / side})`,
    fields: { name: `Label ${i}` } })))
  return id as number
}, { name, count, at })

/** Opens the map at zoom 13 over `xy` (its tiles are zoom 12's: 512 pixels) with only layer `id` shown. */
async function view(page: Page, ids: number[], id: number, xy: [number, number]): Promise<void> {
  await page.evaluate(({ ids, id, xy }) => {
    localStorage.setItem('outpost.map.layers', JSON.stringify(Object.fromEntries(ids.map((l, order) =>
      [`vector:${l}`, { visible: l === id, opacity: 1, order }]))))
    localStorage.setItem('outpost.map.view', JSON.stringify({ center: xy, zoom: 13 }))
  }, { ids, id, xy })
  await page.reload()
  await settle(page)
}

test('map: a crowded tile draws its points as dots without labels; a sparse one labels them', async ({ page }) => {
  await openApp(page)
  await firstLogin(page)
  // In the Atlantic: no basemap labels around.
  const crowdedAt = tileCentre(-30, 1), sparseAt = tileCentre(-32, 1)
  const crowded = await pointLayer(page, 'E2E crowded', 1500, crowdedAt)
  const sparse = await pointLayer(page, 'E2E sparse', 9, sparseAt)
  const colorOf = async (id: number) => {
    await page.getByTestId('layer-list-toggle').click()
    const c = await page.getByTestId(`layer-swatch-${id}`).evaluate((el) => getComputedStyle(el).getPropertyValue('--c').trim())
    await page.getByTestId('layer-list-toggle').click()
    return c
  }

  await view(page, [crowded, sparse], sparse, sparseAt.xy)
  expect(await countColor(page, await colorOf(sparse), 24, 360)).toBeGreaterThan(200)
  expect(await countColor(page, TEXT, 30, 360)).toBeGreaterThan(100)

  await view(page, [crowded, sparse], crowded, crowdedAt.xy)
  expect(await countColor(page, await colorOf(crowded), 24, 360)).toBeGreaterThan(5000)
  expect(await countColor(page, TEXT, 30, 360)).toBeLessThan(10)
})
