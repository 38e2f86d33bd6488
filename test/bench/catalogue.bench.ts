/**
 * Catalogue queries over 10,000 synthetic services (generated here, not the GPL data set):
 * the spec's example queries, timed through the backend's fetch function on the Node host
 * (no HTTP), median of 30 runs each. No native reference tool exists for this API, so there
 * is no ratio column.
 */
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import { encodeRgba } from '../../sw/image/png.ts'
import { machine, median, timeRuns, writeSection } from './report.ts'

const N = 10_000
const RUNS = 30

let seed = 42
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!
const WORDS = ['Topo', 'Satellite', 'OSM', 'Cadastre', 'Roads', 'Hybrid', 'Relief', 'Transport', 'Карта', 'Öffentlich', 'Aerial', 'Water']
const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
const box = () => {
  const x = rnd() * 340 - 170, y = rnd() * 150 - 75, w = 0.5 + rnd() * 20, h = 0.5 + rnd() * 10
  return [x, y, Math.min(x + w, 180), Math.min(y + h, 85)]
}
const ring = ([x0, y0, x1, y1]: number[]) => `((${x0} ${y0}, ${x1} ${y0}, ${x1} ${y1}, ${x0} ${y1}, ${x0} ${y0}))`

function synthetic(): Record<string, unknown> {
  const icon = Buffer.from(encodeRgba({ width: 64, height: 64, data: new Uint8Array(64 * 64 * 4).fill(200) })).toString('base64')
  const icons = Array.from({ length: 50 }, (_, i) => ({ id: i + 1, guid: uuid(900000 + i), name: `icon ${i} ${pick(WORDS)}`, content: icon }))
  const geoservices = Array.from({ length: N }, (_, i) => {
    const id = i + 1
    const type = rnd() < 0.8 ? 'tms' : pick(['wms', 'wfs', 'geojson'])
    const parts = rnd() < 0.7 ? Array.from({ length: rnd() < 0.8 ? 1 : 3 }, box) : []
    const t = new Date(Date.UTC(2016, 0, 1) + Math.floor(rnd() * 3e11)).toISOString().replace(/\.\d+Z$/, 'Z')
    const base = { id, guid: uuid(id), name: `${pick(WORDS)} ${pick(WORDS)} ${id}`, desc: rnd() < 0.5 ? `Synthetic ${pick(WORDS)} service` : null,
      type, epsg: type === 'tms' ? (rnd() < 0.95 ? 3857 : 3395) : null, icon: rnd() < 0.8 ? 1 + Math.floor(rnd() * 50) : null,
      created_at: t, updated_at: t, boundary: parts.length ? `SRID=4326;MULTIPOLYGON (${parts.map(ring).join(', ')})` : null,
      license_name: null, copyright_text: `© synthetic ${id}` }
    if (type === 'tms') return { ...base, url: `https://{switch:a,b,c}.tiles${id}.example/{z}/{x}/{y}.png`, z_min: 0, z_max: 18, y_origin_top: true }
    if (type === 'wms') return { ...base, url: `https://wms${id}.example/wms`, params: 'format=image/png', layers: 'a,b' }
    if (type === 'wfs') return { ...base, url: `https://wfs${id}.example/wfs`, layer: 'ns:layer' }
    return { ...base, url: `https://geojson${id}.example/data.geojson` }
  })
  let sid = 0
  const geoservice_status = geoservices.flatMap((s) => Array.from({ length: 2 }, (_, k) => ({ id: ++sid,
    check_at: `2024-05-0${k + 1}T01:00:${String(sid % 60).padStart(2, '0')}.000001Z`, check_duration: rnd() * 10,
    cumulative_status: pick(['works', 'works', 'problematic', 'failed']), http_code: 200, http_response: null, error_type: null,
    error_text: '', geoservice: s.id })))
  return { geoservices, icons, geoservice_status }
}

const QUERIES: Array<[string, string]> = [
  ['all services, bare array', '/api/v1/geoservices/'],
  ['type filter', '/api/v1/geoservices/?type=tms'],
  ['epsg filter', '/api/v1/geoservices/?epsg=3857'],
  ['cumulative_status filter', '/api/v1/geoservices/?cumulative_status=works'],
  ['search (one term)', '/api/v1/geoservices/?search=topo'],
  ['search (two terms, Cyrillic)', '/api/v1/geoservices/?search=карта+relief'],
  ['intersects_extent (Europe box)', `/api/v1/geoservices/?intersects_extent=${encodeURIComponent('POLYGON((-10 35, 30 35, 30 60, -10 60, -10 35))')}`],
  ['intersects_boundary (Europe box)', `/api/v1/geoservices/?intersects_boundary=${encodeURIComponent('POLYGON((-10 35, 30 35, 30 60, -10 60, -10 35))')}`],
  ['intersects_boundary (EWKT 3857)', `/api/v1/geoservices/?intersects_boundary=${encodeURIComponent('SRID=3857;POLYGON((0 5000000, 2000000 5000000, 2000000 7000000, 0 7000000, 0 5000000))')}`],
  ['ordering=-updated_at', '/api/v1/geoservices/?ordering=-updated_at'],
  ['page limit=10&offset=5000', '/api/v1/geoservices/?limit=10&offset=5000'],
  ['combined (type, epsg, search, boundary, ordering, page)', `/api/v1/geoservices/?type=tms&epsg=3857&search=osm&intersects_boundary=${encodeURIComponent('POLYGON((-10 35, 30 35, 30 60, -10 60, -10 35))')}&ordering=-created_at&limit=20`],
  ['detail', '/api/v1/geoservices/5000/'],
  ['status list, one service', '/api/v1/geoservice_status/?geoservice=5000'],
  ['status list, ordering=-check_at', '/api/v1/geoservice_status/?ordering=-check_at'],
  ['icons search', '/api/v1/icons/?search=topo'],
  ['icon content 24×24 (cached after first)', '/api/v1/icons/7/content?width=24&height=24'],
]

async function main(): Promise<void> {
  const app = createApp(nodePlatform({ admin: { password: 'bench', mustChange: false }, log: () => {} }))
  const get = (path: string) => app.fetch(new Request(`http://bench.local${path}`)).then(async (r) => {
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`)
    return r.arrayBuffer()
  })
  await get('/api/v1/')
  const body = JSON.stringify(synthetic())
  const auth = { authorization: 'Basic ' + btoa('administrator:bench') }
  const t0 = performance.now()
  const res = await app.fetch(new Request('http://bench.local/api/component/outpost/catalogue/import', { method: 'POST', body, headers: auth }))
  const importMs = performance.now() - t0
  if (res.status !== 200) throw new Error(`import: ${res.status} ${await res.text()}`)
  console.log('import', await res.json(), `${importMs.toFixed(0)} ms`)
  const rows: string[] = []
  for (const [what, path] of QUERIES) {
    let n = 0
    const times = await timeRuns(RUNS, async () => { n = (await get(path)).byteLength })
    const m = median(times)
    console.log(`${what}: ${m.toFixed(2)} ms (${n} bytes)`)
    rows.push(`| ${what} | \`${decodeURIComponent(path).replace(/\|/g, '\\|')}\` | ${m.toFixed(2)} | ${(n / 1024).toFixed(0)} KiB |`)
  }
  writeSection('Catalogue', [
    `Geoservice catalogue API (\`/api/v1/\`) over **${N.toLocaleString('en')} synthetic services** (${2 * N} status records, 50 icons),`,
    'generated by `test/bench/catalogue.bench.ts` (not the GPL QMS data). Each query goes through the backend\'s',
    `\`fetch(Request)\` on the Node host (no HTTP), median of ${RUNS} runs after one warm-up, response body read in full.`,
    'The issue names no native reference tool for the catalogue, so there is no ratio column.',
    '',
    `Machine: ${machine()}. Import of the whole catalogue (one request, validated, one transaction): ${importMs.toFixed(0)} ms.`,
    '',
    '| Query | Path | Median ms | Body |',
    '|---|---|---:|---:|',
    ...rows,
  ].join('\n'))
}

main().catch((err: unknown) => { console.error(err); process.exit(1) })
