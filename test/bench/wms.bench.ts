/**
 * WMS GetMap benchmark (issue 26): median time of a GetMap of 256×256 and 1024×1024 px for a
 * vector style (the render benchmark's 20,000 labelled octagons) and a raster style (its RGB COG)
 * on the Node host over HTTP, beside MapServer (Debian `mapserver-bin`, `map2img`) drawing the
 * same data with the same style into a PNG of the same size, in the same run. Three views per
 * size, from the whole data to a twentieth of it. Results go to the "WMS server" section of
 * docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process'
import { Agent, request } from 'node:http'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp, nodePlatform, serve } from '../../sw/host/node.ts'
import { compareImages, pngToImage } from '../api/render-helpers.ts'
import { machine, median, writeSection } from './report.ts'
import { ensureMapserver, toMapfile } from './mapfile.ts'
import { CELL, COLS, fieldsOf, makeRaster, N, polygonWkt, ROWS, STYLE, writeGpkg, X0, Y0 } from './render-data.ts'

const CYCLES = 4
const RUNS = 3
const SIZES = [256, 1024]
const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'

/** Square views centred on the data: its whole height, a quarter of it, a twentieth. */
function views(): Array<[number, number, number, number]> {
  const cx = X0 + (COLS * CELL) / 2, cy = Y0 + (ROWS * CELL) / 2
  return [1, 0.25, 0.05].map((f) => {
    const h = (ROWS * CELL * f) / 2
    return [cx - h, cy - h, cx + h, cy + h]
  })
}

type Call = (method: string, path: string, body?: string | Uint8Array) => Promise<{ ms: number; status: number; bytes: Uint8Array }>

async function nodeHost(): Promise<{ call: Call; close: () => Promise<void> }> {
  const app = createApp(nodePlatform({ admin: { password: 'bench', mustChange: false, force: true }, log: () => {} }))
  const server = await serve(app, { port: 0 })
  // MapServer runs between our requests for seconds: the idle keep-alive socket must outlive it (Node closes it after 5 s).
  server.keepAliveTimeout = 10 * 60_000
  const addr = server.address()
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
  const auth = 'Basic ' + btoa('administrator:bench')
  // A keep-alive client, as map clients keep their connection.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const call: Call = (method, path, body) => new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = request(base + path, { method, agent, headers: { authorization: auth, ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, bytes: new Uint8Array(Buffer.concat(chunks)) }))
      res.on('error', reject)
    })
    req.on('error', (err) => reject(new Error(`${method} ${path.slice(0, 80)}: ${err.message}`)))
    req.end(body)
  })
  return { call, close: async () => { server.closeAllConnections?.(); await new Promise((r) => server.close(r)) } }
}

const idOf = (r: { status: number; bytes: Uint8Array }, what: string) => {
  const text = new TextDecoder().decode(r.bytes)
  if (r.status !== 201 && r.status !== 200) throw new Error(`${what}: ${r.status} ${text.slice(0, 200)}`)
  return (JSON.parse(text) as { id: number }).id
}

/** The vector layer, the raster layer, their styles and a WMS service of both, through the API. */
async function setUp(call: Call, cog: Uint8Array): Promise<number> {
  const layer = idOf(await call('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'wms bench' },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POLYGON', fields: [{ keyname: 'cls', datatype: 'INTEGER' }, { keyname: 'name', datatype: 'STRING' }, { keyname: 'num', datatype: 'REAL' }] } })), 'layer')
  for (let i = 0; i < N; i += 5000) {
    const body = JSON.stringify(Array.from({ length: Math.min(5000, N - i) }, (_, k) => ({ geom: polygonWkt(i + k), fields: fieldsOf(i + k) })))
    const r = await call('PATCH', `/api/resource/${layer}/feature/`, body)
    if (r.status !== 200) throw new Error(`PATCH ${r.status}`)
  }
  const vector = idOf(await call('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'engine_style', parent: { id: layer }, display_name: 'bench' }, engine_style: { xml: STYLE } })), 'style')
  const meta = await call('PUT', '/api/component/file_upload/', cog)
  const raster = idOf(await call('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'raster_layer', parent: { id: 0 }, display_name: 'wms bench raster' },
    raster_layer: { srs: { id: 3857 }, source: JSON.parse(new TextDecoder().decode(meta.bytes)) } })), 'raster layer')
  const rasterStyle = idOf(await call('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'raster_style', parent: { id: raster }, display_name: 'bench' } })), 'raster style')
  return idOf(await call('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'wmsserver_service', parent: { id: 0 }, display_name: 'bench' },
    wmsserver_service: { layers: [{ keyname: 'vector', display_name: 'Vector', resource_id: vector }, { keyname: 'raster', display_name: 'Raster', resource_id: rasterStyle }] } })), 'service')
}

interface Row { layer: string; size: number; ours: number[]; mapserver: number[]; diff: number[] }

async function main(): Promise<void> {
  const loadStart = loadavg()[0]!
  ensureMapserver()
  const dir = mkdtempSync(join(tmpdir(), 'outpost-wms-bench-'))
  const host = await nodeHost()
  try {
    writeFileSync(join(dir, 'fonts.txt'), `regular ${FONT}\n`)
    const maps = {
      vector: toMapfile(STYLE, { data: writeGpkg(dir), type: 'polygon', fontset: join(dir, 'fonts.txt') }),
      raster: toMapfile('<map><layer></layer></map>', { data: makeRaster(dir), type: 'raster', fontset: join(dir, 'fonts.txt') }),
    }
    for (const [k, m] of Object.entries(maps)) writeFileSync(join(dir, `${k}.map`), m)
    const service = await setUp(host.call, new Uint8Array(readFileSync(join(dir, 'raster.tif'))))
    const version = spawnSync('map2img', ['-v']).stdout.toString().split(' ').slice(0, 3).join(' ')
    // One pass over every map first: what a new layer builds after its features arrive (its tile index) is then
    // done, as on a server that has been serving for a while, and not counted against the first view.
    for (const layer of ['vector', 'raster']) for (const size of SIZES) for (const v of views()) {
      await host.call('GET', `/api/resource/${service}/wms?SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=${layer}&STYLES=&SRS=EPSG:3857&BBOX=${v.join(',')}&WIDTH=${size}&HEIGHT=${size}&FORMAT=image/png&TRANSPARENT=TRUE`)
    }
    const rows: Row[] = []
    for (const layer of ['vector', 'raster']) {
      for (const size of SIZES) {
        const row: Row = { layer, size, ours: [], mapserver: [], diff: [] }
        for (const v of views()) {
          const url = `/api/resource/${service}/wms?SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=${layer}&STYLES=&SRS=EPSG:3857&BBOX=${v.join(',')}&WIDTH=${size}&HEIGHT=${size}&FORMAT=image/png&TRANSPARENT=TRUE`
          await host.call('GET', url)
          const ours: number[] = []
          let png: Uint8Array | undefined
          for (let i = 0; i < RUNS; i++) {
            const r = await host.call('GET', url)
            if (r.status !== 200) throw new Error(`GetMap ${r.status} ${new TextDecoder().decode(r.bytes).slice(0, 200)}`)
            ours.push(r.ms)
            png = r.bytes
          }
          // MapServer: the drawing time per map inside one process (`-c n` minus `-c 1`: its start-up left out).
          const out = join(dir, 'ms.png')
          const draw = (cycles: number) => {
            const t0 = performance.now()
            const r = spawnSync('map2img', ['-m', join(dir, `${layer}.map`), '-o', out, '-e', ...v.map(String), '-s', String(size), String(size), '-c', String(cycles)])
            if (r.status !== 0) throw new Error(`map2img: ${r.stderr}`)
            return performance.now() - t0
          }
          const ms: number[] = []
          for (let i = 0; i < RUNS; i++) ms.push((draw(CYCLES + 1) - draw(1)) / CYCLES)
          row.ours.push(median(ours))
          row.mapserver.push(median(ms))
          row.diff.push(compareImages(pngToImage(png!), pngToImage(new Uint8Array(readFileSync(out))), { channel: 40, share: 0 }).share)
        }
        console.log(`${layer} ${size}: ours ${row.ours.map((x) => x.toFixed(1)).join('/')} ms, mapserver ${row.mapserver.map((x) => x.toFixed(1)).join('/')} ms`)
        rows.push(row)
      }
    }
    const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1))
    const ratio = (r: Row) => median(r.ours) / median(r.mapserver)
    const body = [
      `Machine: ${machine()}; reference: ${version} (\`map2img\`, AGG renderer). Load average (1 min) at the start`,
      `${loadStart.toFixed(1)}, at the end ${loadavg()[0]!.toFixed(1)} on 2 cores: the machine is shared and noisy, so compare within the run (ratios).`,
      '',
      'Data: the render benchmark\'s (below): 20,000 labelled octagons in a 5-class XML style, and a 4096 × 2048 RGB COG over',
      'the same area. Ours: `GetMap` (1.1.1, EPSG:3857, PNG, transparent) to `/api/resource/{id}/wms` on the Node host over',
      `HTTP (keep-alive), the whole request, median of ${RUNS} per view. MapServer: \`map2img\` drawing the same data with the`,
      `same style into a PNG of the same size, drawing time per map inside one process (\`-c ${CYCLES + 1}\` minus \`-c 1\`), median of ${RUNS}.`,
      'Views: three squares centred on the data, its whole height (1,000 km), a quarter and a twentieth.',
      '',
      '| layer | size | MapServer | Node host | ratio | views (ours / MapServer, ms) | pixels differing > 40 |',
      '|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.layer} | ${r.size}² | ${fmt(median(r.mapserver))} ms | ${fmt(median(r.ours))} ms | ${ratio(r).toFixed(2)}× | ` +
        `${r.ours.map((o, i) => `${fmt(o)} / ${fmt(r.mapserver[i]!)}`).join(', ')} | ${(median(r.diff) * 100).toFixed(1)}% |`),
      '',
      `Target: within 1.5× of MapServer — ${rows.every((r) => ratio(r) <= 1.5) ? 'met' : '**missed**'} in this run (worst ${Math.max(...rows.map(ratio)).toFixed(2)}×).`,
      'Our times include the HTTP request, the feature query (SQLite-WASM R*Tree) and the PNG encoding; MapServer\'s include',
      'its OGR/GDAL reads and its PNG encoding but not its start-up. The service worker draws through the same code (the',
      'render benchmark compares the two hosts per tile).',
    ].join('\n')
    writeSection('WMS server', body)
    console.log(body)
  } finally {
    await host.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((err) => { console.error(err); process.exit(1) })
