import { expect, test, type Page } from '@playwright/test'
import { firstLogin, openApp } from './ui-steps.ts'
import { decode } from 'fast-png'
import { countColor, settle } from './map-steps.ts'

// Points in a crowded vector tile (more than 1,000) are drawn as dots without labels, so a
// big point layer pans smoothly (docs/benchmarks.md, "Map panning"); a few points keep theirs.

const Z = 12
const HALF = 20037508.342789244
const TEXT = '#1c2329'

/** The centre of the zoom-`z` tile holding lon/lat (512-pixel tiles), in lon/lat and in EPSG:3857. */
function tileCentre(lon: number, lat: number, z = Z) {
  const size = (2 * HALF) / 2 ** z
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

/** Metres per pixel at view zoom `z` (256-pixel zooms: the map's). */
const resolutionAt = (z: number) => (2 * HALF) / 256 / 2 ** z

/** A point layer in EPSG:3857 (no labels) with points at `xy`; the new features' ids in order. */
const metrePoints = (page: Page, name: string, xy: [number, number][]) => page.evaluate(async ({ name, xy }) => {
  const send = async (url: string, method: string, body: unknown) =>
    (await fetch(url, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json()
  const { id } = await send('/api/resource/', 'POST', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } })
  const made = await send(`/api/resource/${id}/feature/`, 'PATCH', xy.map(([x, y], i) => ({ geom: `POINT(${x} ${y})`, fields: { name: `P${i}` } })))
  return { id: id as number, fids: (made as { id: number }[]).map((f) => f.id) }
}, { name, xy })

/** The map's pixels (a screenshot of it) and the colour at a pixel offset from its centre. */
async function mapPixels(page: Page) {
  const png = decode(await page.getByTestId('map').screenshot())
  return (dx: number, dy: number) => {
    const i = (Math.round(png.height / 2 + dy) * png.width + Math.round(png.width / 2 + dx)) * png.channels
    return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!]
  }
}
const near = (rgb: number[], hex: string, tolerance = 24) =>
  [1, 3, 5].every((k, c) => Math.abs(rgb[c]! - Number.parseInt(hex.slice(k, k + 2), 16)) <= tolerance)

test('map: a crowded tile painted as an image has the layer colour where its points are, as drawn as vectors', async ({ page }) => {
  await openApp(page)
  await firstLogin(page)
  // 34 × 34 points 15 px apart at zoom 13 over one zoom-12 tile (1,156: crowded), dots of radius 4 + 1.
  const at = tileCentre(-30, 1), size = (2 * HALF) / 2 ** Z, step = size / 34
  const xy: [number, number][] = []
  for (let j = 0; j < 34; j++) for (let i = 0; i < 34; i++) xy.push([at.xy[0] - size / 2 + (i + 0.5) * step, at.xy[1] - size / 2 + (j + 0.5) * step])
  const { id } = await metrePoints(page, 'E2E spaced', xy)
  let color = ''
  const res = resolutionAt(13)
  // The points within 150 px of the centre, and the pixel half-way to each one's east neighbour.
  const close = xy.map(([x, y]) => [(x - at.xy[0]) / res, (at.xy[1] - y) / res] as const).filter(([dx, dy]) => Math.hypot(dx, dy) < 150)
  expect(close.length).toBeGreaterThan(200)
  for (const mode of ['image', 'vector']) {
    await page.evaluate((mode) => localStorage.setItem('outpost.map.crowdedTiles', mode), mode)
    await view(page, [id], id, at.xy)
    if (!color) {
      await page.getByTestId('layer-list-toggle').click()
      color = await page.getByTestId(`layer-swatch-${id}`).evaluate((el) => getComputedStyle(el).getPropertyValue('--c').trim())
      await page.getByTestId('layer-list-toggle').click()
    }
    const px = await mapPixels(page)
    const dots = close.filter(([dx, dy]) => near(px(dx, dy), color)).length
    const gaps = close.filter(([dx, dy]) => near(px(dx + (step / res) / 2, dy), color)).length
    expect({ mode, dots }).toEqual({ mode, dots: close.length })
    expect({ mode, gaps }).toEqual({ mode, gaps: 0 })
  }
})

test('map: the field panel picks a point painted into a crowded tile', async ({ page }) => {
  await openApp(page)
  await firstLogin(page)
  // 1,100 points within 20 m of one place and one 110 m east of it, all in one zoom-16 tile: the
  // panel fits the view to them at its closest zoom (17), where that tile is crowded.
  const at = tileCentre(-30, 1, 16).xy
  const xy: [number, number][] = Array.from({ length: 1100 }, (_, i) => [at[0] - 50 + ((i % 33) - 16) * 1.2, at[1] + (Math.floor(i / 33) - 16) * 1.2])
  xy.push([at[0] + 60, at[1]])
  const { id, fids } = await metrePoints(page, 'E2E pick', xy)
  await page.reload()
  if (await page.getByTestId('field-open').isVisible()) await page.getByTestId('field-open').click()
  await page.getByTestId('field-layer-select').selectOption({ label: 'E2E pick' })
  await expect(page.getByTestId('field-panel')).toHaveAttribute('data-map-features', '1101')
  await settle(page)
  const view = await page.evaluate(() => JSON.parse(localStorage.getItem('outpost.map.view')!) as { center: number[]; zoom: number })
  expect(view.zoom).toBe(17)
  const res = resolutionAt(17)
  const dx = (at[0] + 60 - view.center[0]!) / res, dy = (view.center[1]! - at[1]) / res
  // The lone point is painted (its colour at its centre), and a click 3 px off it opens it.
  await page.getByTestId('layer-list-toggle').click()
  const color = await page.getByTestId(`layer-swatch-${id}`).evaluate((el) => getComputedStyle(el).getPropertyValue('--c').trim())
  await page.getByTestId('layer-list-toggle').click()
  expect(near((await mapPixels(page))(dx, dy), color)).toBe(true)
  const box = (await page.getByTestId('map').boundingBox())!
  await page.mouse.click(box.x + box.width / 2 + dx + 2, box.y + box.height / 2 + dy - 2)
  await expect(page.getByTestId('field-form')).toHaveAttribute('data-target', String(fids.at(-1)))
})
