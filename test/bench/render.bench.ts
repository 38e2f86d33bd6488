/**
 * Render benchmark: median time per 256 px tile over a fixed tile set, for a 20,000-polygon
 * layer drawn with a 5-class XML style with labels, on the Node host (HTTP) and in Chromium
 * (the service worker), side by side with MapServer (Debian `mapserver-bin`, `map2img`)
 * drawing the same data (a GeoPackage written by ogr2ogr) with the same style translated to
 * a mapfile; and an RGB raster (a COG) uploaded to each host and drawn by a `raster_style`,
 * against MapServer reading the same file. Uncached tiles use `cache=false`; cached tiles are
 * the same URLs asked again.
 * The tiles of both engines are compared pixel by pixel. Results go to the "Rendering"
 * section of docs/benchmarks.md.
 */
import { execSync, spawnSync } from 'node:child_process'
import { Agent, request } from 'node:http'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp, nodePlatform, serve } from '../../sw/host/node.ts'
import { compareImages, pngToImage } from '../api/render-helpers.ts'
import { machine, median, writeSection } from './report.ts'
import { openWorkerPage } from './worker-page.ts'
import { ensureMapserver, toMapfile } from './mapfile.ts'
import { extentOf, fieldsOf, makeRaster, N, polygonWkt, RH, RW, STYLE, tileSet, writeGpkg } from './render-data.ts'

const PORT = Number(process.env.E2E_PORT ?? 4206)
const CYCLES = 6

interface Side { uncached: number[]; cached: number[]; pngs: Uint8Array[]; raster: number[]; rasterPngs: Uint8Array[] }
type Call = (method: string, path: string, body?: string | Uint8Array) => Promise<{ ms: number; status: number; text?: string; bytes?: Uint8Array }>

/** Creates the layer and style through the API (`call` sends one request) and times the tile set. */
async function runOurs(call: Call, label: string, cog: Uint8Array): Promise<Side> {
  const create = await call('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `bench ${Date.now()}` },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POLYGON', fields: [{ keyname: 'cls', datatype: 'INTEGER' }, { keyname: 'name', datatype: 'STRING' }, { keyname: 'num', datatype: 'REAL' }] } }))
  const layer = (JSON.parse(create.text!) as { id: number }).id
  for (let i = 0; i < N; i += 5000) {
    const body = JSON.stringify(Array.from({ length: Math.min(5000, N - i) }, (_, k) => ({ geom: polygonWkt(i + k), fields: fieldsOf(i + k) })))
    const r = await call('PATCH', `/api/resource/${layer}/feature/`, body)
    if (r.status !== 200) throw new Error(`${label}: PATCH ${r.status} ${r.text?.slice(0, 200)}`)
  }
  const style = (JSON.parse((await call('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'engine_style', parent: { id: layer }, display_name: 'bench' },
    engine_style: { xml: STYLE } }))).text!) as { id: number }).id
  const tiles = tileSet()
  const url = (t: [number, number, number], cache: boolean) => `/api/component/render/tile?z=${t[0]}&x=${t[1]}&y=${t[2]}&resource=${style}&cache=${cache}`
  await call('GET', url(tiles[0]!, false))
  const side: Side = { uncached: [], cached: [], pngs: [], raster: [], rasterPngs: [] }
  for (const t of tiles) {
    const runs: number[] = []
    let last: Uint8Array | undefined
    for (let i = 0; i < 3; i++) {
      const r = await call('GET', url(t, false))
      if (r.status !== 200) throw new Error(`${label}: tile ${t} → ${r.status}`)
      runs.push(r.ms)
      last = r.bytes
    }
    side.uncached.push(median(runs))
    side.pngs.push(last!)
    await call('GET', url(t, true))
    const cached: number[] = []
    for (let i = 0; i < 5; i++) cached.push((await call('GET', url(t, true))).ms)
    side.cached.push(median(cached))
  }
  // The raster: uploaded, ingested as a raster layer (GDAL makes it a COG), drawn by a raster style.
  const meta = await call('PUT', '/api/component/file_upload/', cog)
  if (meta.status !== 200 && meta.status !== 201) throw new Error(`${label}: upload ${meta.status} ${meta.text?.slice(0, 200)}`)
  const rasterRes = await call('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'raster_layer', parent: { id: 0 }, display_name: `bench raster ${Date.now()}` },
    raster_layer: { srs: { id: 3857 }, source: JSON.parse(meta.text!) } }))
  if (rasterRes.status !== 201) throw new Error(`${label}: raster layer ${rasterRes.status} ${rasterRes.text?.slice(0, 200)}`)
  const rasterStyle = (JSON.parse((await call('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'raster_style', parent: { id: (JSON.parse(rasterRes.text!) as { id: number }).id }, display_name: 'bench' } }))).text!) as { id: number }).id
  const rasterUrl = (t: [number, number, number]) => `/api/component/render/tile?z=${t[0]}&x=${t[1]}&y=${t[2]}&resource=${rasterStyle}&cache=false`
  await call('GET', rasterUrl(tiles[0]!))
  for (const t of tiles) {
    const runs: number[] = []
    let last: Uint8Array | undefined
    for (let i = 0; i < 3; i++) {
      const r = await call('GET', rasterUrl(t))
      if (r.status !== 200) throw new Error(`${label}: raster tile ${t} → ${r.status}`)
      runs.push(r.ms)
      last = r.bytes
    }
    side.raster.push(median(runs))
    side.rasterPngs.push(last!)
  }
  console.log(`${label}: uncached median ${median(side.uncached).toFixed(1)} ms, cached ${median(side.cached).toFixed(2)} ms, raster ${median(side.raster).toFixed(1)} ms`)
  return side
}

async function nodeSide(cog: Uint8Array): Promise<Side> {
  const app = createApp(nodePlatform({ admin: { password: 'bench', mustChange: false, force: true }, log: () => {} }))
  const server = await serve(app, { port: 0 })
  const addr = server.address()
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
  const auth = 'Basic ' + btoa('administrator:bench')
  try {
    // A keep-alive node:http client, as map clients keep their connection: fetch (undici) in
    // this same process spent more on each request than a cached tile costs the server.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    return await runOurs((method, path, body) => new Promise((resolve, reject) => {
      const t0 = performance.now()
      const req = request(base + path, { method, agent, headers: { authorization: auth, ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}) } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const bytes = new Uint8Array(Buffer.concat(chunks))
          const ms = performance.now() - t0
          resolve({ ms, status: res.statusCode ?? 0, bytes, text: String(res.headers['content-type'] ?? '').includes('json') ? new TextDecoder().decode(bytes) : undefined })
        })
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end(body)
    }), 'node', cog)
  } finally {
    server.closeAllConnections?.()
    await new Promise((r) => server.close(r))
  }
}

async function swSide(cog: Uint8Array): Promise<Side> {
  const { page, close } = await openWorkerPage(PORT)
  try {
    const auth = 'Basic ' + btoa('administrator:admin')
    return await runOurs(async (method, path, body) => {
      const raw = body instanceof Uint8Array ? Buffer.from(body).toString('base64') : undefined
      const r = await page.evaluate(async ({ method, path, body, raw, auth }) => {
        const payload = raw === undefined ? body : Uint8Array.from(atob(raw), (ch) => ch.charCodeAt(0))
        const t0 = performance.now()
        const res = await fetch(path, { method, headers: { authorization: auth }, body: payload })
        const buf = new Uint8Array(await res.arrayBuffer())
        const ms = performance.now() - t0
        const json = res.headers.get('content-type')?.includes('json')
        let bin = ''
        if (!json) for (let i = 0; i < buf.length; i += 0x8000) bin += String.fromCharCode(...buf.subarray(i, i + 0x8000))
        return { ms, status: res.status, text: json ? new TextDecoder().decode(buf) : undefined, b64: json ? undefined : btoa(bin) }
      }, { method, path, body: typeof body === 'string' ? body : undefined, raw, auth })
      return { ms: r.ms, status: r.status, text: r.text, bytes: r.b64 === undefined ? undefined : new Uint8Array(Buffer.from(r.b64, 'base64')) }
    }, 'service worker', cog)
  } finally {
    await close()
  }
}

const FONT = ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'].find(existsSync)

/** MapServer's time per tile: `map2img -c n` draws the map n times in one process, so the start-up is subtracted. */
function mapserverSide(dir: string): { uncached: number[]; pngs: Uint8Array[]; version: string } {
  ensureMapserver()
  const gpkg = writeGpkg(dir)
  writeFileSync(join(dir, 'fonts.txt'), `regular ${FONT}\n`)
  const mapfile = join(dir, 'style.map')
  writeFileSync(mapfile, toMapfile(STYLE, { data: gpkg, type: 'polygon', fontset: join(dir, 'fonts.txt') }))
  const version = execSync('map2img -v').toString().split(' ').slice(0, 3).join(' ')
  const out = { uncached: [] as number[], pngs: [] as Uint8Array[], version }
  const draw = (t: [number, number, number], cycles: number) => {
    const png = join(dir, 'tile.png')
    const t0 = performance.now()
    const r = spawnSync('map2img', ['-m', mapfile, '-o', png, '-e', ...extentOf(t).map(String), '-s', '256', '256', '-c', String(cycles)])
    if (r.status !== 0) throw new Error(`map2img failed: ${r.stderr}`)
    return { ms: performance.now() - t0, png }
  }
  for (const t of tileSet()) {
    const runs: number[] = []
    for (let i = 0; i < 3; i++) runs.push((draw(t, CYCLES + 1).ms - draw(t, 1).ms) / CYCLES)
    out.uncached.push(median(runs))
    out.pngs.push(new Uint8Array(readFileSync(draw(t, 1).png)))
  }
  console.log(`mapserver: median ${median(out.uncached).toFixed(1)} ms`)
  return out
}

const RASTER_STYLE = '<map><layer></layer></map>'

/** MapServer's time per raster tile (as for the vector tiles) and its tiles; the COG goes to both of our hosts through the API. */
function rasterMapserver(dir: string): { cog: Uint8Array; mapserver: number[]; pngs: Uint8Array[] } {
  const cog = makeRaster(dir)
  const mapfile = join(dir, 'raster.map')
  writeFileSync(mapfile, toMapfile(RASTER_STYLE, { data: cog, type: 'raster', fontset: join(dir, 'fonts.txt') }))
  const out = { cog: new Uint8Array(readFileSync(cog)), mapserver: [] as number[], pngs: [] as Uint8Array[] }
  for (const t of tileSet()) {
    const png = join(dir, 'rtile.png')
    const ms: number[] = []
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now()
      spawnSync('map2img', ['-m', mapfile, '-o', png, '-e', ...extentOf(t).map(String), '-s', '256', '256', '-c', String(CYCLES + 1)])
      const t1 = performance.now()
      const r = spawnSync('map2img', ['-m', mapfile, '-o', png, '-e', ...extentOf(t).map(String), '-s', '256', '256', '-c', '1'])
      if (r.status !== 0) throw new Error(`map2img raster failed: ${r.stderr}`)
      ms.push((t1 - t0 - (performance.now() - t1)) / CYCLES)
    }
    out.mapserver.push(median(ms))
    out.pngs.push(new Uint8Array(readFileSync(png)))
  }
  console.log(`raster: mapserver ${median(out.mapserver).toFixed(1)} ms`)
  return out
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2))

async function main(): Promise<void> {
  const loadStart = loadavg()[0]!
  const dir = mkdtempSync(join(tmpdir(), 'outpost-render-bench-'))
  try {
    const ms = mapserverSide(dir)
    const raster = rasterMapserver(dir)
    const node = await nodeSide(raster.cog)
    const sw = await swSide(raster.cog)
    const rm = median(raster.mapserver)
    const rasterDiffs = raster.pngs.map((p, i) => compareImages(pngToImage(node.rasterPngs[i]!), pngToImage(p), { channel: 40, share: 0 }))
    const m = median(ms.uncached)
    const diffs = ms.pngs.map((p, i) => compareImages(pngToImage(node.pngs[i]!), pngToImage(p), { channel: 40, share: 0 }))
    const hostDiffs = node.pngs.map((p, i) => compareImages(pngToImage(p), pngToImage(sw.pngs[i]!), { channel: 40, share: 0 }))
    const pct = (xs: number[]) => `${(median(xs) * 100).toFixed(1)}% (max ${(Math.max(...xs) * 100).toFixed(1)}%)`
    const byZoom = [6, 8, 10, 12].map((z) => {
      const idx = tileSet().map((t, i) => (t[0] === z ? i : -1)).filter((i) => i >= 0)
      const med = (xs: number[]) => median(idx.map((i) => xs[i]!))
      const m = med(ms.uncached)
      return `| ${z} | ${fmt(m)} ms | ${fmt(med(node.uncached))} ms (${(med(node.uncached) / m).toFixed(1)}×) | ${fmt(med(sw.uncached))} ms (${(med(sw.uncached) / m).toFixed(1)}×) |`
    })
    // The targets: uncached within 2× of MapServer (per tile set, per zoom and for the raster), cached < 5 ms.
    const zoomRatios = [6, 8, 10, 12].flatMap((z) => {
      const idx = tileSet().map((t, i) => (t[0] === z ? i : -1)).filter((i) => i >= 0)
      const med = (xs: number[]) => median(idx.map((i) => xs[i]!))
      return [med(node.uncached) / med(ms.uncached), med(sw.uncached) / med(ms.uncached)]
    })
    const verdict = (ok: boolean) => (ok ? 'met' : '**missed**')
    const targets = [
      `Targets in this run: uncached median within 2× — ${verdict(median(node.uncached) <= 2 * m && median(sw.uncached) <= 2 * m)};`,
      `every zoom within 2× on both hosts — ${verdict(zoomRatios.every((r) => r <= 2))} (worst ${Math.max(...zoomRatios).toFixed(1)}×);`,
      `raster within 2× on both hosts — ${verdict(median(node.raster) <= 2 * median(raster.mapserver) && median(sw.raster) <= 2 * median(raster.mapserver))};`,
      `cached < 5 ms — ${verdict(median(node.cached) < 5 && median(sw.cached) < 5)}.`,
    ].join(' ')
    const body = [
      `Machine: ${machine()}; reference: ${ms.version} (\`map2img\`, AGG renderer, data from a GeoPackage through OGR).`,
      `Load average (1 min) at the start ${loadStart.toFixed(1)}, at the end ${loadavg()[0]!.toFixed(1)} on 2 cores: the machine is shared, compare within the run.`,
      '',
      `Data: ${N.toLocaleString('en')} octagons on a grid, a 5-class XML style (class by an integer field, grey outline) with a`,
      'label per feature (haloed); the same style translated into a mapfile for MapServer. Tile set: 5 tiles at each of',
      'zooms 6, 8, 10 and 12 (zoom 6 holds about 10,000 polygons per tile, zoom 12 about 20). Our times are whole HTTP',
      'requests from the client (Node host over HTTP, a keep-alive connection; in Chromium a `fetch` from a page to the service worker), median of 3',
      `per tile with \`cache=false\`; MapServer's is the drawing time per map inside one process (\`map2img -c ${CYCLES + 1}\``,
      'minus `-c 1`, so its start-up is left out), median of 3. Cached: the same tile asked again (median of 5).',
      '',
      '| median per tile | MapServer | Node host | service worker (Chromium) |',
      '|---|---|---|---|',
      `| uncached | ${fmt(m)} ms | ${fmt(median(node.uncached))} ms (${(median(node.uncached) / m).toFixed(1)}×) | ${fmt(median(sw.uncached))} ms (${(median(sw.uncached) / m).toFixed(1)}×) |`,
      `| cached | — | ${fmt(median(node.cached))} ms | ${fmt(median(sw.cached))} ms |`,
      '',
      '| zoom (uncached) | MapServer | Node host | service worker |',
      '|---|---|---|---|',
      ...byZoom,
      '',
      targets,
      '',
      `Pixels, MapServer vs Outpost (Node host), per tile, channel difference over 40: ${pct(diffs.map((d) => d.share))};`,
      `mean absolute difference per channel ${median(diffs.map((d) => d.meanAbs)).toFixed(2)} (0–255). Node host vs service worker:`,
      `${pct(hostDiffs.map((d) => d.share))}, mean ${median(hostDiffs.map((d) => d.meanAbs)).toFixed(2)}. The differences with MapServer are`,
      'antialiasing at polygon edges and the labels (font rasterising, placement rules); docs/rendering.md shows examples.',
      '',
      `**Raster** (RGB, ${RW} × ${RH} px over the same area, a COG with DEFLATE and averaged overviews made by gdal_translate;`,
      'the same tile set; MapServer reads it through GDAL with `RESAMPLE=BILINEAR`). Ours: the COG uploaded to each host,',
      'a `raster_layer` made from it (GDAL-WASM), a `raster_style` on it, tiles over HTTP / from the worker as above',
      '(windowed `geotiff` reads from the stored file, bilinear resampling, PNG), median of 3 per tile, `cache=false`.',
      '',
      '| median per tile | MapServer | Node host | service worker (Chromium) |',
      '|---|---|---|---|',
      `| raster, uncached | ${fmt(rm)} ms | ${fmt(median(node.raster))} ms (${(median(node.raster) / rm).toFixed(1)}×) | ${fmt(median(sw.raster))} ms (${(median(sw.raster) / rm).toFixed(1)}×) |`,
      '',
      `Raster pixels, MapServer vs Outpost (Node host): ${pct(rasterDiffs.map((d) => d.share))} over 40, mean ${median(rasterDiffs.map((d) => d.meanAbs)).toFixed(2)}.`,
      '',
      'What makes these times (docs/rendering.md, "Speed"): raster windows are put together from decoded GeoTIFF blocks',
      'kept in a 32 MiB cache (as GDAL\'s block cache serves MapServer, whose `-c` loop redraws the same map), DEFLATE',
      'blocks are inflated by `node:zlib` on the Node host, and the Node host writes PNGs with `pngjs` over `node:zlib` (Up filter, level 3)',
      'instead of Skia\'s slower encoder; small vector features of one style are drawn as one path per style while they',
      'do not overlap. The times are whole requests, so they include the R*Tree query of the features (SQLite-WASM),',
      'which MapServer\'s OGR reading is not split from either.',
    ].join('\n')
    writeSection('Rendering', body)
    console.log(body)
    // The tiles side by side, for a look (a fresh clone has no test-results/ until a test run).
    mkdirSync('test-results', { recursive: true })
    for (const [i, p] of ms.pngs.entries()) {
      writeFileSync(join('test-results', `bench-mapserver-${i}.png`), p)
      writeFileSync(join('test-results', `bench-outpost-${i}.png`), node.pngs[i]!)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((err) => { console.error(err); process.exit(1) })
