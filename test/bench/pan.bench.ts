/**
 * Map panning benchmark (issue 10: "a 1,000,000-point layer pans smoothly"). In Chromium, the
 * service worker host gets a 1,000,000-point layer and a 1,000-point one (the same seeded
 * clusters as the tiles benchmark, labelled by name); the app's map is opened with one of them
 * visible and dragged with the mouse over a fixed path at several zooms. What a person sees is
 * recorded in the page: frame intervals (requestAnimationFrame), long tasks (PerformanceObserver
 * 'longtask') and, per drag, the time from releasing the mouse until the map has drawn every
 * tile of the new view (OpenLayers' `rendercomplete`). The 1,000-point layer over the same path
 * in the same run is the baseline, so the result is a ratio. Results go to the "Map panning"
 * section of docs/benchmarks.md.
 */
import { writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import type { Page, Request } from 'playwright-core'
import { machine, median, writeSection } from './report.ts'
import { loginAdmin, openWorkerPage, pageApi as api } from './worker-page.ts'
import { pointFeature, position } from './tiles-data.ts'

const PORT = Number(process.env.E2E_PORT ?? 4313)
const BIG = Number(process.env.BENCH_PAN_POINTS ?? 1_000_000)
const SMALL = 1_000
const BATCH = 10_000
const ZOOMS = (process.env.BENCH_PAN_ZOOMS ?? '6,8,10,12').split(',').map(Number)
/** The drags of one zoom (pixels), back to the start: each shows new ground at its edges. */
const PATH: [number, number][] = [[-400, 0], [0, -250], [400, 0], [0, 250]]
/** Mouse moves per drag, one per 16 ms: a drag of about half a second, as a hand does it. */
const MOVES = 30
const PASSWORD = 'bench-pan-password'
/** `BENCH_PAN_PROFILE=/tmp/pan` writes a CPU profile of the page per zoom while the big layer is dragged. */
const PROFILE = process.env.BENCH_PAN_PROFILE
/**
 * `BENCH_PAN_TRACE=/tmp/pan` writes a Chromium trace (tasks, paints, JS samples) of the counted
 * big-layer pass per zoom, for scripts/long-tasks.mjs to take the long tasks apart.
 */
const TRACE = process.env.BENCH_PAN_TRACE
/** `BENCH_PAN_VARIANTS=0` skips the two comparison variants (a quicker run while looking into one). */
const VARIANTS = process.env.BENCH_PAN_VARIANTS !== '0'
/** The viewport: a laptop screen. */
const VIEWPORT = { width: 1366, height: 768 }
/** The view's centre: the densest 20 km cell of the big layer (from a sample), where tiles hold the most points. */
const CENTRE = (() => {
  const cells = new Map<string, number>()
  for (let i = 0; i < 20_000; i++) {
    const [x, y] = position(3, i)
    const k = `${Math.floor(x / 20_000)},${Math.floor(y / 20_000)}`
    cells.set(k, (cells.get(k) ?? 0) + 1)
  }
  const [best] = [...cells].sort((a, b) => b[1] - a[1])[0]!
  return best.split(',').map((v) => (Number(v) + 0.5) * 20_000) as [number, number]
})()

interface Recording { frames: number[]; long: { start: number; duration: number }[]; loaf: Loaf[] }
/** A long animation frame as Chromium attributes it: scripts (by invoker) and the frame's rendering. */
interface Loaf { start: number; duration: number; renderStart: number; styleAndLayoutStart: number; scripts: { invoker: string; duration: number }[] }
interface ZoomResult { intervals: number[]; long: number[]; drawn: number[]; tiles: number; tileBytes: number; worstFrame?: Loaf }

async function pointLayer(page: Page, name: string, count: number, seed: number): Promise<number> {
  const { id } = await api(page, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING', label_field: true },
      { keyname: 'n', datatype: 'INTEGER' }] } })
  const t0 = performance.now()
  for (let i = 0; i < count; i += BATCH) {
    const batch = Array.from({ length: Math.min(count, i + BATCH) - i }, (_, k) => {
      const f = pointFeature(seed, i + k)
      return { geom: f.wkt, fields: { name: f.name, n: f.n } }
    })
    await api(page, 'PATCH', `/api/resource/${id}/feature/`, batch)
  }
  console.log(`${name}: ${count} points loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  return id as number
}

/**
 * Records frames and long tasks from the page's start into `__panRec` (read and reset by the
 * benchmark). A string: tsx's helpers in a compiled function would not exist in the page.
 */
const RECORDER = `(() => {
  window.__panRec = { frames: [], long: [], loaf: [] }
  const tick = (t) => { window.__panRec.frames.push(t); requestAnimationFrame(tick) }
  requestAnimationFrame(tick)
  addEventListener('pointerup', () => { window.__panUp = performance.now() }, true)
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__panRec.long.push({ start: e.startTime, duration: e.duration })
  }).observe({ type: 'longtask', buffered: true })
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__panRec.loaf.push({ start: e.startTime, duration: e.duration, renderStart: e.renderStart,
      styleAndLayoutStart: e.styleAndLayoutStart, scripts: e.scripts.map((x) => ({ invoker: x.invoker, duration: x.duration })) })
  }).observe({ type: 'long-animation-frame', buffered: true })
})()`

/**
 * Vector-tile requests finished since the last reset, the page's and its decoding worker's
 * (Playwright sees both; the page's performance entries only its own).
 */
const tileRequests: Request[] = []
const watched = new WeakSet<Page>()
function watchTiles(page: Page): void {
  if (watched.has(page)) return
  watched.add(page)
  page.context().on('requestfinished', (r) => { if (r.url().includes('/feature_layer/mvt')) tileRequests.push(r) })
}

const renderedAt = (page: Page) => page.getByTestId('map').evaluate((el) => Number((el as HTMLElement).dataset.renderedAt ?? 0))

/** Waits until the map has drawn its whole view after `after` (performance.now in the page). */
async function drawnAfter(page: Page, after: number): Promise<number> {
  await page.waitForFunction((after) => Number((document.querySelector('[data-testid="map"]') as HTMLElement | null)?.dataset.renderedAt ?? 0) > after,
    after, { timeout: 120_000, polling: 50 })
  return renderedAt(page)
}

/** How the app is set for a run: the crowded-tile rule's limit, tiles decoded on the page instead of in the worker. */
interface Variant { crowdedTile?: number; decodeOnPage?: boolean; crowdedVectors?: boolean }

/** Opens the map at `zoom` with only layer `visible` of `ids` shown, and drags it over the path. */
async function panAt(page: Page, base: string, ids: number[], visible: number, zoom: number, variant: Variant = {}, counted = true): Promise<ZoomResult> {
  const { crowdedTile, decodeOnPage, crowdedVectors } = variant
  await page.evaluate(({ ids, visible, zoom, centre, crowdedTile, decodeOnPage, crowdedVectors }) => {
    if (crowdedTile) localStorage.setItem('outpost.map.crowdedTile', String(crowdedTile))
    else localStorage.removeItem('outpost.map.crowdedTile')
    if (decodeOnPage) localStorage.setItem('outpost.map.tileDecode', 'page')
    else localStorage.removeItem('outpost.map.tileDecode')
    if (crowdedVectors) localStorage.setItem('outpost.map.crowdedTiles', 'vector')
    else localStorage.removeItem('outpost.map.crowdedTiles')
    localStorage.setItem('outpost.map.layers', JSON.stringify(Object.fromEntries(ids.map((id, order) =>
      [`vector:${id}`, { visible: id === visible, opacity: 1, order }]))))
    localStorage.setItem('outpost.map.view', JSON.stringify({ center: centre, zoom }))
  }, { ids, visible, zoom, centre: CENTRE, crowdedTile, decodeOnPage, crowdedVectors })
  await page.goto(`${base}/`)
  await drawnAfter(page, 0)
  await page.waitForLoadState('networkidle')
  await drawnAfter(page, 0)
  await page.waitForTimeout(500)
  const box = (await page.getByTestId('map').boundingBox())!
  const cx = box.x + box.width / 2, cy = box.y + box.height / 2
  const start = await page.evaluate(() => {
    const w = window as unknown as { __panRec: Recording }
    w.__panRec.frames = []
    w.__panRec.long = []
    w.__panRec.loaf = []
    return performance.now()
  })
  watchTiles(page)
  tileRequests.length = 0
  const profiler = PROFILE && visible !== ids[0] && !crowdedTile && !decodeOnPage && !crowdedVectors ? await page.context().newCDPSession(page) : undefined
  if (profiler) { await profiler.send('Profiler.enable'); await profiler.send('Profiler.start') }
  const tracing = TRACE && visible !== ids[0] && !crowdedTile && !decodeOnPage && !crowdedVectors && counted ? page.context().browser() : null
  if (tracing) await tracing.startTracing(page, { path: `${TRACE}-z${zoom}.json`, screenshots: false,
    categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-v8.cpu_profiler', 'toplevel', 'v8'] })
  const drawn: number[] = []
  for (const [dx, dy] of PATH) {
    await page.mouse.move(cx - dx / 2, cy - dy / 2)
    await page.mouse.down()
    for (let k = 1; k <= MOVES; k++) {
      await page.mouse.move(cx - dx / 2 + (dx * k) / MOVES, cy - dy / 2 + (dy * k) / MOVES)
      await page.waitForTimeout(16)
    }
    await page.mouse.up()
    // The release as the page saw it: the map may have drawn before a later evaluate returns.
    const up = await page.evaluate(() => (window as unknown as { __panUp: number }).__panUp)
    drawn.push((await drawnAfter(page, up)) - up)
    await page.waitForTimeout(300)
  }
  if (tracing) await tracing.stopTracing()
  if (profiler) {
    const { profile } = await profiler.send('Profiler.stop')
    writeFileSync(`${PROFILE}-z${zoom}.cpuprofile`, JSON.stringify(profile))
    await profiler.detach()
  }
  const rec = await page.evaluate((start) => {
    const w = window as unknown as { __panRec: Recording }
    return { ...w.__panRec, frames: w.__panRec.frames.filter((t) => t >= start) }
  }, start)
  const tiles = tileRequests.splice(0)
  // The body itself: Playwright knows no sizes of an answer the service worker gave (NaN, shown as such, where it has no body either).
  const tileBytes = (await Promise.all(tiles.map(async (r) => (await (await r.response())?.body().catch(() => undefined))?.length ?? Number.NaN)))
    .reduce((s, x) => s + x, 0)
  const intervals = rec.frames.slice(1).map((t, i) => t - rec.frames[i]!)
  const worstFrame = rec.loaf.filter((l) => l.start >= start).sort((a, b) => b.duration - a.duration)[0]
  return { intervals, long: rec.long.filter((l) => l.start >= start).map((l) => l.duration), drawn, tiles: tiles.length, tileBytes, worstFrame }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0
}
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1))

function summary(r: ZoomResult) {
  return { median: median(r.intervals), p95: pct(r.intervals, 95), over50: r.intervals.filter((i) => i > 50).length / Math.max(1, r.intervals.length),
    longest: Math.max(0, ...r.long), longTotal: r.long.reduce((s, x) => s + x, 0), drawn: median(r.drawn), drawnMax: Math.max(...r.drawn),
    frames: r.intervals.length + 1, tiles: r.tiles, tileBytes: r.tileBytes, worstFrame: frameParts(r.worstFrame) }
}

/** Where the longest animation frame's time went: its scripts by invoker, and the browser's rendering after them. */
function frameParts(f: Loaf | undefined): string {
  if (!f) return 'none'
  const scripts = [...f.scripts].sort((a, b) => b.duration - a.duration)
  const inScripts = scripts.reduce((n, x) => n + x.duration, 0)
  // Style, layout, paint and the commit to the compositor: from styleAndLayoutStart to the frame's end (after every script).
  const painting = f.styleAndLayoutStart ? f.start + f.duration - f.styleAndLayoutStart : 0
  return `${ms(f.duration)} ms (scripts ${ms(inScripts)}: ${scripts.slice(0, 3).map((x) => `${x.invoker} ${ms(x.duration)}`).join(', ')}; ` +
    `style, layout and paint ${ms(painting)}; the rest ${ms(f.duration - inScripts - painting)})`
}

async function main(): Promise<void> {
  const load0 = loadavg()[0]!
  const { page, close } = await openWorkerPage(PORT)
  type Summary = ReturnType<typeof summary>
  const results: { zoom: number; small: Summary; big: Summary; vectors: Summary; onPage: Summary; plain: Summary }[] = []
  const line = (label: string, x: Summary) => `${label}: median ${ms(x.median)} ms, p95 ${ms(x.p95)} ms, >50 ms ${(100 * x.over50).toFixed(0)} %, ` +
    `longest task ${ms(x.longest)} ms, drawn ${ms(x.drawn)} ms (max ${ms(x.drawnMax)}), ${x.tiles} tiles ${(x.tileBytes / 1024).toFixed(0)} KiB, longest frame ${x.worstFrame}`
  try {
    const base = new URL(page.url()).origin
    await page.setViewportSize(VIEWPORT)
    await loginAdmin(page, PASSWORD)
    const small = await pointLayer(page, `pan ${SMALL} points`, SMALL, 4)
    const big = await pointLayer(page, `pan ${BIG} points`, BIG, 3)
    await page.addInitScript(RECORDER)
    for (const zoom of ZOOMS) {
      const s = summary(await panAt(page, base, [small, big], small, zoom))
      // A first pass over the big layer, not counted: the worker cuts its tiles then, so both runs below get them cached.
      await panAt(page, base, [small, big], big, zoom, {}, false)
      const p = VARIANTS ? summary(await panAt(page, base, [small, big], big, zoom, { crowdedTile: Number.MAX_SAFE_INTEGER })) : s
      const o = VARIANTS ? summary(await panAt(page, base, [small, big], big, zoom, { decodeOnPage: true })) : s
      const v = VARIANTS ? summary(await panAt(page, base, [small, big], big, zoom, { crowdedVectors: true })) : s
      const b = summary(await panAt(page, base, [small, big], big, zoom))
      results.push({ zoom, small: s, big: b, vectors: v, onPage: o, plain: p })
      console.log(`zoom ${zoom}: ${line(`${SMALL} points`, s)}; ${line(`${BIG} points`, b)}; ${line('crowded tiles as vectors', v)}; ${line('decoded on the page', o)}; ` +
        line('without the crowded-tile rule', p))
    }
  } finally {
    await close()
  }
  const load1 = loadavg()[0]!
  const row = (zoom: number, label: string, x: ReturnType<typeof summary>, ref?: ReturnType<typeof summary>) =>
    `| ${zoom} | ${label} | ${ms(x.median)} ms | ${ms(x.p95)} ms${ref ? ` (${(x.p95 / ref.p95).toFixed(1)}×)` : ''} | ${(100 * x.over50).toFixed(0)} % | ` +
    `${ms(x.longest)} ms | ${ms(x.longTotal)} ms | ${ms(x.drawn)} ms${ref ? ` (${(x.drawn / ref.drawn).toFixed(1)}×)` : ''} / ${ms(x.drawnMax)} ms | ${x.tiles} (${(x.tileBytes / 1024).toFixed(0)} KiB) |`
  if (VARIANTS) writeSection('Map panning', `
Machine: ${machine()}. Command: \`npm run bench -- pan\`.
The machine is shared: its load average was ${load0.toFixed(1)} when the run started and ${load1.toFixed(1)} when it ended (2 cores).

The app's map in headless Chromium (${VIEWPORT.width}×${VIEWPORT.height}, software rendering), the layer drawn from the service
worker's vector tiles with its label field, the view centred on the densest 20 km cell of the tiles benchmark's data
(\`test/bench/tiles-data.ts\`). At each zoom the map is opened afresh and dragged with the mouse ${PATH.length} times
(${PATH.map(([x, y]) => `${x},${y}`).join(' → ')} px, ${MOVES} moves 16 ms apart each), waiting for the view to be drawn after each drag.
Frame intervals are from \`requestAnimationFrame\` over the whole path; long tasks from \`PerformanceObserver('longtask')\`;
"drawn" is the time from releasing the mouse to the map's \`rendercomplete\` (every tile of the new view loaded and drawn),
median / worst of the drags. Baseline: the same map and path with a ${SMALL.toLocaleString('en')}-point layer instead; ratios are
${BIG.toLocaleString('en')} ÷ baseline. Tiles: vector tiles fetched during the path. "Without the crowded-tile rule": the same
app with \`outpost.map.crowdedTile\` set so high that no tile is crowded, i.e. every point drawn as a symbol with its
decluttered label, as before the rule (docs/data-out.md, "Drawn in the app"). "Crowded tiles drawn as vectors on the page":
the same app with \`outpost.map.crowdedTiles\` = \`vector\`, i.e. a crowded tile's points made into OpenLayers polygons and drawn
on the page's thread, as before they were painted in the map's worker (docs/rendering.md, "Crowded tiles as images").
"Tiles decoded on the page": the same app with \`outpost.map.tileDecode\` = \`page\`, i.e. OpenLayers' own tile loader parsing
each tile on the page's thread (crowded tiles as vectors too), as before tiles were decoded in a worker (docs/rendering.md,
"Vector tiles off the page's thread"). At each zoom an uncounted pass over the big layer comes first: its runs get their tiles from the worker's cache (the cost of cutting them is in the tiles
benchmark); the page's own tile cache starts empty in every run.

| zoom | layer | frame median | frame p95 | frames > 50 ms | longest task | long tasks, total | drawn after a drag, median / worst | tiles |
|---|---|---|---|---|---|---|---|---|
${results.map((r) => [row(r.zoom, `${SMALL.toLocaleString('en')} points`, r.small), row(r.zoom, `${BIG.toLocaleString('en')} points`, r.big, r.small),
    row(r.zoom, `${BIG.toLocaleString('en')} points, crowded tiles drawn as vectors on the page`, r.vectors, r.small),
    row(r.zoom, `${BIG.toLocaleString('en')} points, tiles decoded on the page`, r.onPage, r.small),
    row(r.zoom, `${BIG.toLocaleString('en')} points, without the crowded-tile rule`, r.plain, r.small)].join('\n')).join('\n')}
`)
}

await main()
