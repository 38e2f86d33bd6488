/**
 * A web map of 10 layers to its first full render (issue 25), from the service worker, in
 * Chromium. Ten vector layers (six of 20,000 points, four of 5,000 polygons: the tiles
 * benchmark's seeded clusters), a style each, and a web map of the ten made through the API
 * (`POST /api/resource/` with `webmap.root_item`). The app's map is opened with the ten shown over
 * their data and timed from navigation to the map's last `rendercomplete` once nothing loads any
 * more (every tile of every layer drawn). Cold: the service worker stopped first, so it starts,
 * reopens its databases and cuts every tile; warm: opened again with the worker and its tile
 * cache running. Each both with tiles decoded in the map's worker and on the page (OpenLayers'
 * own loader, `outpost.map.tileDecode` = `page`), interleaved, in the same run. Until the app's
 * web-map view (`./?webmap=<id>`) is on main, the ten layers are opened through the app's map,
 * which draws the same vector tiles. Results: the "Web map of 10 layers" section of docs/benchmarks.md.
 */
import { loadavg } from 'node:os'
import type { Page } from 'playwright-core'
import { machine, median, writeSection } from './report.ts'
import { loginAdmin, openWorkerPage, pageApi as api } from './worker-page.ts'
import { pointFeature, polygonFeature, type BenchFeature } from './tiles-data.ts'

const PORT = Number(process.env.E2E_PORT ?? 4313)
const RUNS = Number(process.env.BENCH_WEBMAP_RUNS ?? 3)
const POINTS = 20_000, POLYGONS = 5_000, BATCH = 5_000
const PASSWORD = 'bench-webmap-password'
const VIEWPORT = { width: 1366, height: 768 }
/** The middle of the data's 2,000 km square, at a zoom that shows most of it. */
const VIEW = { center: [3_000_000, 7_000_000], zoom: 7 }

async function layer(page: Page, name: string, type: 'POINT' | 'POLYGON', count: number, make: (i: number) => BenchFeature) {
  const { id } = await api(page, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
    vector_layer: { srs: { id: 3857 }, geometry_type: type, fields: [{ keyname: 'name', datatype: 'STRING', label_field: true },
      { keyname: 'n', datatype: 'INTEGER' }] } })
  for (let i = 0; i < count; i += BATCH) {
    await api(page, 'PATCH', `/api/resource/${id}/feature/`, Array.from({ length: Math.min(count, i + BATCH) - i }, (_, k) => {
      const f = make(i + k)
      return { geom: f.wkt, fields: { name: f.name, n: f.n } }
    }))
  }
  const style = await api(page, 'POST', '/api/resource/', { resource: { cls: 'engine_style', parent: { id }, display_name: `${name} style` } })
  return { id: id as number, style: style.id as number, name }
}

/** Stops the service worker as the browser does an idle one: it starts again, with empty caches, on the next request. */
async function stopWorker(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('ServiceWorker.enable')
  await cdp.send('ServiceWorker.stopAllWorkers')
  await cdp.detach()
}

/** How the ten layers are opened: the web map (`./?webmap=<id>`), or the layers in the app's map with tiles decoded in its worker or on the page. */
type Variant = 'webmap' | 'worker' | 'page'
const VARIANTS: Variant[] = ['webmap', 'worker', 'page']
const LABEL: Record<Variant, string> = { webmap: 'the web map (`./?webmap=<id>`, image tiles drawn by the service worker)',
  worker: 'the ten layers in the app\'s map, vector tiles decoded in its worker', page: 'the same, vector tiles decoded on the page' }
/** The view as the web-map URL names it: zoom/lat/lon of VIEW's centre. */
const viewParam = () => {
  const [x, y] = VIEW.center as [number, number]
  const R = 6378137
  return `${VIEW.zoom}/${((Math.atan(Math.sinh(y / R)) * 180) / Math.PI).toFixed(4)}/${((x / R) * 180 / Math.PI).toFixed(4)}`
}

/** Opens the ten layers as `variant` says; ms from navigation to the map's last full render, and the tiles it asked for. */
async function open(page: Page, base: string, ids: number[], webmap: number, variant: Variant): Promise<{ ms: number; tiles: number }> {
  const onPage = variant === 'page'
  await page.evaluate(({ ids, view, onPage, shown }) => {
    localStorage.setItem('outpost.map.layers', JSON.stringify(Object.fromEntries(ids.map((id, order) => [`vector:${id}`, { visible: shown, opacity: 1, order }]))))
    localStorage.setItem('outpost.map.view', JSON.stringify(view))
    if (onPage) localStorage.setItem('outpost.map.tileDecode', 'page')
    else localStorage.removeItem('outpost.map.tileDecode')
  }, { ids, view: VIEW, onPage, shown: variant !== 'webmap' })
  let tiles = 0
  const count = (r: { url(): string }) => { if (/\/feature_layer\/mvt|\/render\/tile/.test(r.url())) tiles++ }
  page.context().on('requestfinished', count)
  try {
    await page.goto(variant === 'webmap' ? `${base}/?webmap=${webmap}&view=${viewParam()}` : `${base}/`)
    await page.waitForFunction(() => Number((document.querySelector('[data-testid="map"]') as HTMLElement | null)?.dataset.renderedAt ?? 0) > 0,
      undefined, { timeout: 300_000, polling: 50 })
    await page.waitForLoadState('networkidle', { timeout: 300_000 })
    await page.waitForTimeout(1000)
    // performance.now() counts from the navigation: the last full render is the time to it.
    const ms = await page.getByTestId('map').evaluate((el) => Number((el as HTMLElement).dataset.renderedAt))
    return { ms, tiles }
  } finally {
    page.context().off('requestfinished', count)
  }
}

async function main(): Promise<void> {
  const load0 = loadavg()[0]!
  const { page, close } = await openWorkerPage(PORT)
  const times = { cold: { webmap: [] as number[], worker: [] as number[], page: [] as number[] },
    warm: { webmap: [] as number[], worker: [] as number[], page: [] as number[] } }
  const tileCount = { webmap: 0, worker: 0, page: 0 }
  let webmap = 0
  try {
    const base = new URL(page.url()).origin
    await page.setViewportSize(VIEWPORT)
    await loginAdmin(page, PASSWORD)
    const layers = []
    for (let k = 0; k < 10; k++) {
      layers.push(k < 6 ? await layer(page, `webmap points ${k}`, 'POINT', POINTS, (i) => pointFeature(10 + k, i))
        : await layer(page, `webmap areas ${k}`, 'POLYGON', POLYGONS, (i) => polygonFeature(10 + k, i)))
    }
    webmap = (await api(page, 'POST', '/api/resource/', { resource: { cls: 'webmap', parent: { id: 0 }, display_name: 'Ten layers' },
      webmap: { root_item: { item_type: 'root', children: layers.map((l) => ({ item_type: 'layer', display_name: l.name,
        layer_style_id: l.style, layer_adapter: 'tile', layer_enabled: true })) } } })).id
    const ids = layers.map((l) => l.id)
    for (let run = 0; run < RUNS; run++) {
      for (const variant of VARIANTS) {
        await stopWorker(page)
        const cold = await open(page, base, ids, webmap, variant)
        const warm = await open(page, base, ids, webmap, variant)
        times.cold[variant].push(cold.ms)
        times.warm[variant].push(warm.ms)
        tileCount[variant] = warm.tiles
        console.log(`run ${run + 1}, ${variant}: cold ${cold.ms.toFixed(0)} ms (${cold.tiles} tiles), warm ${warm.ms.toFixed(0)} ms (${warm.tiles} tiles)`)
      }
    }
  } finally {
    await close()
  }
  const load1 = loadavg()[0]!
  const cell = (xs: number[]) => `${median(xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(', ')})`
  writeSection('Web map of 10 layers', `
Machine: ${machine()}. Command: \`npm run bench -- webmap\`.
The machine is shared: its load average was ${load0.toFixed(1)} when the run started and ${load1.toFixed(1)} when it ended (2 cores).

Ten vector layers in the service worker (six of ${POINTS.toLocaleString('en')} points, four of ${POLYGONS.toLocaleString('en')} 12-sided polygons; the tiles
benchmark's seeded clusters, \`test/bench/tiles-data.ts\`), a default style each, and a web map of the ten made through
\`POST /api/resource/\` (\`webmap.root_item\`). Headless Chromium (${VIEWPORT.width}×${VIEWPORT.height}, software rendering) opens them at
zoom ${VIEW.zoom} over the data (\`view=${viewParam()}\`) and is timed from navigation to the map's last \`rendercomplete\` once the
network is idle: every tile of every layer drawn, the world basemap under them. Cold: the service worker stopped before the
navigation (it starts, reopens its databases and draws or cuts every tile); warm: the same page opened again right after
(its tile caches full). Three ways, interleaved, in the same run; median (each run):

| opened as | tiles | cold | warm |
|---|---|---|---|
${VARIANTS.map((v) => `| ${LABEL[v]} | ${tileCount[v]} | ${cell(times.cold[v])} | ${cell(times.warm[v])} |`).join('\n')}
`)
}

await main()
