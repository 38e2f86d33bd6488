/**
 * Sync benchmark: the first pull of a 10,000-feature layer from a team's server (linking the
 * layer) and a push of 10,000 changed features (one sync round), Node↔Node (two Node hosts,
 * file stores) and Chromium↔Node (the app's worker with IndexedDB, the team's server reached
 * across origins), side by side with Debian's GDAL NGW driver against the same team's server:
 * `ogr2ogr` reading the layer into a GeoPackage (the pull's reference) and writing 10,000
 * features into a new layer in batches (the push's reference). Also the cost of versioning on
 * the write path: batch create and batch update of 10,000 features, versioned layer against a
 * layer without versioning, on the Node host in the same run. Medians go to the "Sync"
 * section of docs/benchmarks.md.
 */
import { execSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'node:http'
import type { Page } from '@playwright/test'
import type { Api } from '../api/harness.ts'
import { NODE_ADMIN_PASSWORD, startNodeApi } from '../api/node-client.ts'
import { swApi } from '../e2e/helpers.ts'
import { machine, median, writeSection } from './report.ts'
import { openWorkerPage } from './worker-page.ts'
import { FIELDS, N, points } from './sync-data.ts'

const RUNS = 3
const PORT = Number(process.env.E2E_PORT ?? 4205)
const ORIGIN = `http://127.0.0.1:${PORT}`

interface Host { api: Api; server: Server; base: string; dir: string }

async function startHost(opts: { corsOrigins?: string[] } = {}): Promise<Host> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-sync-bench-'))
  return { ...await startNodeApi({ dataDir: dir, platform: opts }), dir }
}

async function stopHost(h: Host): Promise<void> {
  await new Promise((r) => h.server.close(r))
  rmSync(h.dir, { recursive: true, force: true })
}

async function ok(api: Api, method: string, path: string, body?: unknown): Promise<any> { // reason: API JSON
  const res = await api.request(method, path, { body })
  if (res.status >= 300) throw new Error(`${api.host}: ${method} ${path} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`)
  return res.body
}

/** A layer of `N` features on the team's server. */
async function teamLayer(remote: Api, seed: number, versioned = true): Promise<number> {
  const { id } = await ok(remote, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 },
    display_name: `team ${seed} ${Math.random()}` }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: FIELDS },
    feature_layer: { versioning: { enabled: versioned } } })
  await ok(remote, 'PATCH', `/api/resource/${id}/feature/`, points(N, seed))
  return id
}

interface Side { pull: number[]; push: number[] }

/** Links a team's layer (the first pull), changes every feature, syncs (the push). */
async function runOurs(local: Api, remote: Host, label: string, password: string): Promise<Side> {
  const { id: conn } = await ok(local, 'POST', '/api/resource/', { resource: { cls: 'remote_connection', parent: { id: 0 },
    display_name: `team server ${Math.random()}` }, remote_connection: { url: remote.base, username: 'administrator', password } })
  const side: Side = { pull: [], push: [] }
  for (let r = 0; r < RUNS; r++) {
    const rl = await teamLayer(remote.api, r)
    let t0 = performance.now()
    const { id: lid } = await ok(local, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 },
      display_name: `offline ${Math.random()}` }, vector_layer: { remote: { connection: { id: conn }, resource: { id: rl } } } })
    side.pull.push(performance.now() - t0)
    const count = (await ok(local, 'GET', `/api/resource/${lid}/feature_count`)).total_count
    if (count !== N) throw new Error(`${label}: pulled ${count} of ${N}`)
    const mine = await ok(local, 'GET', `/api/resource/${lid}/feature/?fields=n&geom=no`) as { id: number; fields: { n: number } }[]
    await ok(local, 'PATCH', `/api/resource/${lid}/feature/`, mine.map((f) => ({ id: f.id, fields: { n: f.fields.n + 1 } })))
    t0 = performance.now()
    const report = await ok(local, 'POST', `/api/resource/${lid}/sync`)
    side.push.push(performance.now() - t0)
    if (report.status !== 'ok' || report.pushed.updated !== N) throw new Error(`${label}: push ${JSON.stringify(report)}`)
    const theirs = await ok(remote.api, 'GET', `/api/resource/${rl}/feature/?fields=n,name&geom=no`) as { fields: { n: number; name: string } }[]
    if (theirs.length !== N || theirs.some((f) => f.fields.n !== Number(f.fields.name.split('-')[1]) + 1)) throw new Error(`${label}: remote differs after the push`)
    console.log(`${label}: first pull ${side.pull.at(-1)!.toFixed(0)} ms, push ${side.push.at(-1)!.toFixed(0)} ms`)
  }
  return side
}

async function nodeSide(remote: Host): Promise<Side> {
  const local = await startHost()
  try {
    return await runOurs(local.api, remote, 'Node↔Node', NODE_ADMIN_PASSWORD)
  } finally {
    await stopHost(local)
  }
}

async function swSide(remote: Host): Promise<Side> {
  const { page, close } = await openWorkerPage(PORT)
  try {
    // tsx keeps function names with a helper the page does not have (swApi's request body).
    await page.evaluate('globalThis.__name = (f) => f')
    return await runOurs(swApi(page as unknown as Page), remote, 'Chromium↔Node', NODE_ADMIN_PASSWORD)
  } finally {
    await close()
  }
}

/** Runs a GDAL tool without blocking: the host it talks to runs in this process. */
function gdal(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const p = spawn('ogr2ogr', args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    p.on('error', reject)
    p.on('close', (status) => status === 0 && !/^ERROR/m.test(stderr) ? resolve(performance.now() - t0)
      : reject(new Error(`ogr2ogr ${args.join(' ')}: ${status} ${stderr}`)))
  })
}

/** GDAL's NGW driver against the same team's server: read a layer whole, write a new one in batches. */
async function ogrSide(remote: Host): Promise<{ side: Side; version: string }> {
  execSync('node scripts/ensure-gdal.mjs', { stdio: 'ignore' })
  const version = execSync('ogr2ogr --version', { encoding: 'utf8' }).trim()
  const dir = mkdtempSync(join(tmpdir(), 'outpost-sync-ogr-'))
  const auth = `USERPWD=administrator:${NODE_ADMIN_PASSWORD}`
  const side: Side = { pull: [], push: [] }
  try {
    for (let r = 0; r < RUNS; r++) {
      const rl = await teamLayer(remote.api, 10 + r)
      const out = join(dir, `pull${r}.gpkg`)
      side.pull.push(await gdal(['-f', 'GPKG', out, `NGW:${remote.base}/resource/${rl}`, '-oo', auth]))
      side.push.push(await gdal(['-f', 'NGW', `NGW:${remote.base}/resource/0/ogr push ${r} ${Date.now()}`, out,
        '-dsco', auth, '-dsco', 'BATCH_SIZE=2000']))
      console.log(`ogr2ogr NGW: read ${side.pull.at(-1)!.toFixed(0)} ms, write ${side.push.at(-1)!.toFixed(0)} ms`)
    }
    return { side, version }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Batch create and batch update of `N` features, versioned layer against one without. */
async function versioningCost(host: Host): Promise<Record<'on' | 'off', { create: number[]; update: number[] }>> {
  const out = { on: { create: [] as number[], update: [] as number[] }, off: { create: [] as number[], update: [] as number[] } }
  for (let r = 0; r < RUNS; r++) {
    for (const mode of ['off', 'on'] as const) {
      const { id } = await ok(host.api, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 },
        display_name: `cost ${mode} ${r} ${Math.random()}` }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: FIELDS },
        feature_layer: { versioning: { enabled: mode === 'on' } } })
      let t0 = performance.now()
      const created = await ok(host.api, 'PATCH', `/api/resource/${id}/feature/`, points(N, r)) as { id: number }[]
      out[mode].create.push(performance.now() - t0)
      const update = created.map((f, i) => ({ id: f.id, fields: { n: -i } }))
      t0 = performance.now()
      await ok(host.api, 'PATCH', `/api/resource/${id}/feature/`, update)
      out[mode].update.push(performance.now() - t0)
    }
  }
  return out
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1))
const runs = (ms: number[]) => ms.map(fmt).join(', ')

async function main(): Promise<void> {
  const remote = await startHost({ corsOrigins: [ORIGIN] })
  try {
    const cost = await versioningCost(remote)
    const ogr = await ogrSide(remote)
    const node = await nodeSide(remote)
    const sw = await swSide(remote)
    const m = median
    const line = (op: string, ref: number[], n: number[], s: number[]) =>
      `| ${op} | ${fmt(m(ref))} ms | ${fmt(m(n))} ms (${(m(n) / m(ref)).toFixed(1)}×) | ${fmt(m(s))} ms (${(m(s) / m(ref)).toFixed(1)}×) |`
    const costLine = (op: string, off: number[], on: number[]) =>
      `| ${op} | ${fmt(m(off))} ms | ${fmt(m(on))} ms (${(m(on) / m(off)).toFixed(2)}×) |`
    const body = [
      `Machine: ${machine()}; reference: ${ogr.version} (Debian \`gdal-bin\`), its NGW driver talking to the same team's server.`,
      '',
      `The team's server is a Node host (file store) in the benchmark's process; "Node↔Node" links and syncs from a second`,
      'Node host (file store) in the same process, "Chromium↔Node" from the app\'s service worker (IndexedDB) across origins',
      `(CORS). First pull: \`POST /api/resource/\` of a layer linked to a ${N.toLocaleString('en')}-point layer with three fields,`,
      'answered once every feature is stored here (schema, changes feed, ids mapped). Push: one `POST …/sync` after a batch',
      `update of all ${N.toLocaleString('en')} features here: the round reads the remote's changes, sends the updates in a`,
      'transaction (PUT batches, commit, results) and records the versions. Reference: `ogr2ogr -f GPKG out.gpkg NGW:…/resource/R`',
      `(the whole layer read into a GeoPackage) for the pull, and \`ogr2ogr -f NGW\` of that GeoPackage into a new layer`,
      '(`BATCH_SIZE=2000`: creates, not updates, with no conflict checks) for the push. Median of ' + RUNS + ' runs.',
      '',
      '| operation | ogr2ogr NGW driver | Node↔Node (× ogr2ogr) | Chromium↔Node (× ogr2ogr) |',
      '|---|---|---|---|',
      line(`first pull of ${N.toLocaleString('en')} features`, ogr.side.pull, node.pull, sw.pull),
      line(`push of ${N.toLocaleString('en')} changed features`, ogr.side.push, node.push, sw.push),
      '',
      `Every run, in order (ms): ogr2ogr read ${runs(ogr.side.pull)}, write ${runs(ogr.side.push)}; Node↔Node pull ${runs(node.pull)},`,
      `push ${runs(node.push)}; Chromium↔Node pull ${runs(sw.pull)}, push ${runs(sw.push)}.`,
      '',
      `The write path with versioning (Node host, file store, same run): one \`PATCH …/feature/\` of ${N.toLocaleString('en')}`,
      'new features, then one of updates of all of them, into a layer with versioning off and one with it on (every write a',
      'version, a history row per feature).',
      '',
      '| operation | versioning off | versioning on (× off) |',
      '|---|---|---|',
      costLine(`batch create of ${N.toLocaleString('en')}`, cost.off.create, cost.on.create),
      costLine(`batch update of ${N.toLocaleString('en')}`, cost.off.update, cost.on.update),
      '',
      `Runs (ms): create off ${runs(cost.off.create)}, on ${runs(cost.on.create)}; update off ${runs(cost.off.update)}, on ${runs(cost.on.update)}.`,
    ].join('\n')
    console.log(body)
    writeSection('Sync', body)
  } finally {
    await stopHost(remote)
  }
}

main().catch((err) => { console.error(err); process.exit(1) })
