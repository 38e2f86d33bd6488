/**
 * The Node↔Node first pull of sync.bench.ts alone, RUNS times in one process, for an A/B across
 * commits: copy this file and sync-data.ts into a worktree of the other commit and run both in
 * turn (`npx tsx test/bench/ab-pull.ts`). Besides the wall time it prints the process's CPU time
 * per pull (both hosts run in it, so that is all the work, and it is far steadier than the wall
 * time on a loaded machine) and the fsyncs the file stores made. PUSH=1 also changes every
 * feature and pushes between pulls, as the bench does; GUARD=0 starts the hosts without the
 * nested-unit-of-work guard (as `npm run serve` does; startNodeApi turns it on).
 */
import fs, { mkdtempSync, rmSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NODE_ADMIN_PASSWORD, startNodeApi } from '../api/node-client.ts'
import { FIELDS, N, points } from './sync-data.ts'

// Counts and times the fsyncs (the file store's durability): they cost wall time, not CPU. The
// store's named imports of node:fs are live bindings, updated by syncBuiltinESMExports.
const syncs = { n: 0, ms: 0 }
for (const k of ['fdatasyncSync', 'fsyncSync'] as const) {
  const orig = fs[k]
  ;(fs as unknown as Record<string, unknown>)[k] = (fd: number) => { const t = performance.now(); try { orig(fd) } finally { syncs.n++; syncs.ms += performance.now() - t } }
}
syncBuiltinESMExports()
const RUNS = Number(process.env.RUNS ?? 4)
const dirs = [mkdtempSync(join(tmpdir(), 'ab-pull-')), mkdtempSync(join(tmpdir(), 'ab-pull-'))]
// GUARD=0: the hosts as `npm run serve` runs them (no nested-unit-of-work guard, no AsyncLocalStorage).
const platform = process.env.GUARD === '0' ? { guardUnitsOfWork: false } : {}
const remote = await startNodeApi({ dataDir: dirs[0], platform })
const local = await startNodeApi({ dataDir: dirs[1], platform })
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const ok = async (api: typeof remote.api, m: string, p: string, body?: unknown): Promise<any> => { const r = await api.request(m, p, { body }); if (r.status >= 300) throw new Error(`${m} ${p} ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`); return r.body }
const { id: conn } = await ok(local.api, 'POST', '/api/resource/', { resource: { cls: 'remote_connection', parent: { id: 0 }, display_name: 'team' },
  remote_connection: { url: remote.base, username: 'administrator', password: NODE_ADMIN_PASSWORD } })
const out: number[] = [], cpu: number[] = [], sy: string[] = []
for (let r = 0; r < RUNS; r++) {
  const { id: rl } = await ok(remote.api, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `team ${r}` },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: FIELDS }, feature_layer: { versioning: { enabled: true } } })
  await ok(remote.api, 'PATCH', `/api/resource/${rl}/feature/`, points(N, r))
  const t0 = performance.now(), c0 = process.cpuUsage(), s0 = { ...syncs }
  const { id: lid } = await ok(local.api, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `offline ${r}` },
    vector_layer: { remote: { connection: { id: conn }, resource: { id: rl } } } })
  out.push(performance.now() - t0)
  const c = process.cpuUsage(c0); cpu.push((c.user + c.system) / 1000); sy.push(`${syncs.n - s0.n}/${(syncs.ms - s0.ms).toFixed(0)}`)
  if (process.env.PUSH) {
    const mine = await ok(local.api, 'GET', `/api/resource/${lid}/feature/?fields=n&geom=no`) as { id: number; fields: { n: number } }[]
    await ok(local.api, 'PATCH', `/api/resource/${lid}/feature/`, mine.map((f) => ({ id: f.id, fields: { n: f.fields.n + 1 } })))
    await ok(local.api, 'POST', `/api/resource/${lid}/sync`)
  }
}
console.log(`${process.cwd()}: pulls ${out.map((x) => x.toFixed(0)).join(' ')} ms, cpu ${cpu.map((x) => x.toFixed(0)).join(' ')} ms, fsyncs n/ms ${sy.join(' ')}`)
for (const h of [remote, local]) await new Promise((r) => h.server.close(r))
for (const d of dirs) rmSync(d, { recursive: true, force: true })
process.exit(0)
