/**
 * Features benchmark: batch-create 10,000 points with attributes (one PATCH), list them,
 * read 1,000 one by one, and edit one feature in a 100,000-feature layer — on the Node host
 * (HTTP, file store), in Chromium against the service worker (IndexedDB), and the same
 * operations on PostGIS through `pg` (a throwaway cluster, installed with apt-get if
 * missing). Medians go to the "Features" section of docs/benchmarks.md.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp, nodePlatform, serve } from '../../sw/host/node.ts'
import { machine, median, writeSection } from './report.ts'
import { startPostgis } from './postgis.ts'
import { openWorkerPage } from './worker-page.ts'

const BATCH = 10_000
const READS = 1_000
const BIG = 100_000
const RUNS = 5
const EDITS = 15
const PORT = Number(process.env.E2E_PORT ?? 4205)

interface Req { method: string; path: string; body?: string }
/** Sends requests one after another; returns the elapsed ms and the last answer. */
type Exec = (reqs: Req[], auth: string) => Promise<{ ms: number; status: number; body: unknown }>

const FIELDS = [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' },
  { keyname: 'v', datatype: 'REAL' }, { keyname: 'day', datatype: 'DATE' }]

interface Row { x: number; y: number; name: string; n: number; v: number; day: string }
function rows(count: number, seed: number): Row[] {
  return Array.from({ length: count }, (_, i) => ({ x: 4_000_000 + i * 7.5, y: 7_500_000 + seed * 1000 + (i % 977) * 3.25,
    name: `feature ${seed}-${i}`, n: i, v: i / 7, day: `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}` }))
}
const patchBody = (rs: Row[]) => JSON.stringify(rs.map((r) => ({ geom: `POINT(${r.x} ${r.y})`,
  fields: { name: r.name, n: r.n, v: r.v, day: r.day } })))

interface Result { batch: number[]; list: number[]; reads: number; edit: number[]; rowwise?: number }

async function runOurs(exec: Exec, auth: string, label: string): Promise<Result> {
  const one = async (method: string, path: string, body?: unknown) => {
    const r = await exec([{ method, path, body: body === undefined ? undefined : JSON.stringify(body) }], auth)
    if (r.status >= 300) throw new Error(`${label}: ${method} ${path} → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`)
    return r
  }
  const newLayer = async () => ((await one('POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 },
    display_name: `bench ${Date.now()} ${Math.random()}` }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: FIELDS } })).body as { id: number }).id
  const res: Result = { batch: [], list: [], reads: 0, edit: [] }
  let layer = 0
  for (let i = 0; i < RUNS; i++) {
    layer = await newLayer()
    const r = await exec([{ method: 'PATCH', path: `/api/resource/${layer}/feature/`, body: patchBody(rows(BATCH, i)) }], auth)
    if (r.status !== 200 || (r.body as unknown[]).length !== BATCH) throw new Error(`${label}: batch failed ${r.status}`)
    res.batch.push(r.ms)
    console.log(`${label}: batch ${r.ms.toFixed(0)} ms`)
  }
  for (let i = 0; i < RUNS; i++) {
    const r = await exec([{ method: 'GET', path: `/api/resource/${layer}/feature/` }], auth)
    if ((r.body as unknown[]).length !== BATCH) throw new Error(`${label}: list returned ${(r.body as unknown[]).length}`)
    res.list.push(r.ms)
  }
  const first = ((await one('GET', `/api/resource/${layer}/feature/?limit=1&fields=&geom=no`)).body as { id: number }[])[0]!.id
  const reads = Array.from({ length: READS }, (_, i) => ({ method: 'GET', path: `/api/resource/${layer}/feature/${first + i * 7}` }))
  const r = await exec(reads, auth)
  if (r.status !== 200) throw new Error(`${label}: reads failed ${r.status}`)
  res.reads = r.ms
  console.log(`${label}: list ${median(res.list).toFixed(0)} ms, ${READS} reads ${r.ms.toFixed(0)} ms`)
  const big = await newLayer()
  for (let i = 0; i < BIG / BATCH; i++) await exec([{ method: 'PATCH', path: `/api/resource/${big}/feature/`, body: patchBody(rows(BATCH, 10 + i)) }], auth)
  const bigFirst = ((await one('GET', `/api/resource/${big}/feature/?limit=1&fields=&geom=no`)).body as { id: number }[])[0]!.id
  const count = (await one('GET', `/api/resource/${big}/feature_count`)).body as { total_count: number }
  if (count.total_count !== BIG) throw new Error(`${label}: big layer has ${count.total_count}`)
  for (let i = 0; i < EDITS + 1; i++) {
    const fid = bigFirst + 1000 * i + 17
    const e = await exec([{ method: 'PUT', path: `/api/resource/${big}/feature/${fid}`,
      body: JSON.stringify({ geom: `POINT(${4e6 + i} ${7.6e6})`, fields: { name: `edited ${i}`, n: -i } }) }], auth)
    if (e.status !== 200) throw new Error(`${label}: edit failed ${e.status}`)
    if (i > 0) res.edit.push(e.ms) // the first edit warms the statement cache
  }
  console.log(`${label}: edit in ${BIG} median ${median(res.edit).toFixed(1)} ms`)
  return res
}

// ---- Node host over HTTP, data in files ----

async function nodeSide(): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-bench-'))
  const app = createApp(nodePlatform({ dataDir: dir, admin: { password: 'bench', mustChange: false, force: true }, log: () => {} }))
  const server = await serve(app, { port: 0 })
  const addr = server.address()
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
  const exec: Exec = async (reqs, auth) => {
    let status = 0
    let body: unknown
    const t0 = performance.now()
    for (const r of reqs) {
      const res = await fetch(base + r.path, { method: r.method, headers: { authorization: auth }, body: r.body })
      status = res.status
      body = await res.json()
    }
    return { ms: performance.now() - t0, status, body }
  }
  try {
    return await runOurs(exec, 'Basic ' + btoa('administrator:bench'), 'node')
  } finally {
    await new Promise((r) => server.close(r))
    rmSync(dir, { recursive: true, force: true })
  }
}

// ---- the service worker in Chromium ----

async function swSide(): Promise<Result> {
  const { page, close } = await openWorkerPage(PORT)
  try {
    const exec: Exec = (reqs, auth) => page.evaluate(async ({ reqs, auth }) => {
      let status = 0
      let body: unknown
      const t0 = performance.now()
      for (const r of reqs) {
        const res = await fetch(r.path, { method: r.method, headers: { authorization: auth }, body: r.body })
        status = res.status
        body = await res.json()
      }
      return { ms: performance.now() - t0, status, body }
    }, { reqs, auth })
    return await runOurs(exec, 'Basic ' + btoa('administrator:admin'), 'service worker')
  } finally {
    await close()
  }
}

// ---- PostGIS ----

async function postgisSide(): Promise<{ result: Result; version: string }> {
  const { client, version, stop } = await startPostgis(PORT)
  try {
    const table = async (name: string) => {
      await client.query(`CREATE TABLE ${name} (fid serial PRIMARY KEY, geom geometry(Point, 3857), name text, n integer, v double precision, day date)`)
      await client.query(`CREATE INDEX ON ${name} USING gist (geom)`)
    }
    // One statement per batch, as a strong reference: the rows travel as arrays.
    const insert = async (name: string, rs: Row[]) => {
      await client.query('BEGIN')
      const r = await client.query(`INSERT INTO ${name} (geom, name, n, v, day)
        SELECT ST_GeomFromText(g, 3857), name, n, v, day FROM unnest($1::text[], $2::text[], $3::int[], $4::float8[], $5::date[]) AS u(g, name, n, v, day)
        RETURNING fid`, [rs.map((r) => `POINT(${r.x} ${r.y})`), rs.map((r) => r.name), rs.map((r) => r.n), rs.map((r) => r.v), rs.map((r) => r.day)])
      await client.query('COMMIT')
      return r.rowCount
    }
    const res: Result = { batch: [], list: [], reads: 0, edit: [] }
    for (let i = 0; i < RUNS; i++) {
      await table(`b${i}`)
      const t0 = performance.now()
      const n = await insert(`b${i}`, rows(BATCH, i))
      res.batch.push(performance.now() - t0)
      if (n !== BATCH) throw new Error('postgis batch failed')
    }
    // For context: the same batch as one INSERT per feature in one transaction, as a server
    // writing feature by feature does it.
    await table('rowwise')
    const rowwise: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const rs = rows(BATCH, 20 + i)
      const t0 = performance.now()
      await client.query('BEGIN')
      for (const r of rs) {
        await client.query(`INSERT INTO rowwise (geom, name, n, v, day) VALUES (ST_GeomFromText($1, 3857), $2, $3, $4, $5) RETURNING fid`,
          [`POINT(${r.x} ${r.y})`, r.name, r.n, r.v, r.day])
      }
      await client.query('COMMIT')
      rowwise.push(performance.now() - t0)
    }
    res.rowwise = median(rowwise)
    const last = `b${RUNS - 1}`
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now()
      const r = await client.query(`SELECT fid, ST_AsText(geom) AS geom, name, n, v, day FROM ${last} ORDER BY fid`)
      res.list.push(performance.now() - t0)
      if (r.rowCount !== BATCH) throw new Error('postgis list failed')
    }
    let t0 = performance.now()
    for (let i = 0; i < READS; i++) await client.query(`SELECT fid, ST_AsText(geom) AS geom, name, n, v, day FROM ${last} WHERE fid = $1`, [1 + i * 7])
    res.reads = performance.now() - t0
    await table('big')
    for (let i = 0; i < BIG / BATCH; i++) await insert('big', rows(BATCH, 10 + i))
    for (let i = 0; i < EDITS + 1; i++) {
      t0 = performance.now()
      await client.query(`UPDATE big SET geom = ST_GeomFromText($1, 3857), name = $2, n = $3 WHERE fid = $4`,
        [`POINT(${4e6 + i} ${7.6e6})`, `edited ${i}`, -i, 1000 * i + 17])
      if (i > 0) res.edit.push(performance.now() - t0)
    }
    console.log(`postgis: batch ${median(res.batch).toFixed(0)} ms, list ${median(res.list).toFixed(0)} ms, reads ${res.reads.toFixed(0)} ms, edit ${median(res.edit).toFixed(1)} ms`)
    return { result: res, version }
  } finally {
    await stop()
  }
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1))
const runs = (ms: number[]) => `${ms.map(fmt).join(', ')} ms`

async function main(): Promise<void> {
  const pgr = await postgisSide()
  const node = await nodeSide()
  const sw = await swSide()
  const line = (op: string, p: number, n: number, s: number) =>
    `| ${op} | ${fmt(p)} ms | ${fmt(n)} ms (${(n / p).toFixed(1)}×) | ${fmt(s)} ms (${(s / p).toFixed(1)}×) |`
  const body = [
    `Machine: ${machine()}; reference: ${pgr.version} (throwaway cluster, fsync on), driven by \`pg\` over a Unix socket.`,
    '',
    'Outpost times are whole HTTP requests from the client (JSON parsing, WKT, SQLite, durable save); PostGIS times are',
    'the bare SQL (one `INSERT … SELECT FROM unnest(…)` per batch, `ST_AsText` for reading), no HTTP server in between.',
    `Batch and list: median of ${RUNS} runs (the first batch of each side runs cold: a fresh worker or process, code not yet`,
    'optimized); reads: ' + `${READS} sequential GETs of one feature, total; edit: median of ${EDITS}`,
    `single-feature PUTs (geometry + two fields) in a ${BIG.toLocaleString('en')}-feature layer, durable before the answer.`,
    '',
    '| operation | PostGIS | Node host (files) | service worker (Chromium, IndexedDB) |',
    '|---|---|---|---|',
    line(`batch-create ${BATCH.toLocaleString('en')} points (PATCH)`, median(pgr.result.batch), median(node.batch), median(sw.batch)),
    line(`list ${BATCH.toLocaleString('en')} features`, median(pgr.result.list), median(node.list), median(sw.list)),
    line(`read ${READS.toLocaleString('en')} features one by one`, pgr.result.reads, node.reads, sw.reads),
    line(`edit one feature in ${BIG.toLocaleString('en')}`, median(pgr.result.edit), median(node.edit), median(sw.edit)),
    '',
    `Targets: batch < 1 s (service worker: ${fmt(median(sw.batch))} ms), single edit < 30 ms in Chromium (${fmt(median(sw.edit))} ms),`,
    `service worker within 2× of PostGIS for the batch (${(median(sw.batch) / median(pgr.result.batch)).toFixed(1)}×).`,
    `Every batch run, in order (the machine is shared, so single runs vary): PostGIS ${runs(pgr.result.batch)};`,
    `Node host ${runs(node.batch)}; service worker ${runs(sw.batch)}.`,
    `The same batch sent to PostGIS as one parameterized \`INSERT\` per feature in one transaction takes ${fmt(pgr.result.rowwise!)} ms`,
    `(service worker: ${(median(sw.batch) / pgr.result.rowwise!).toFixed(1)}× of that).`,
  ].join('\n')
  writeSection('Features', body)
  console.log(body)
}

main().catch((err) => { console.error(err); process.exit(1) })
