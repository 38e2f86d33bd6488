import { describe, expect, it, onTestFinished } from 'vitest'
import { createApp, nodePlatform, postgresData } from '../../sw/host/node.ts'
import type { AppOptions } from '../../sw/app.ts'
import { cluster } from '../pg/shared.ts'
import { fromWire, toWire, type Api } from './harness.ts'
import { Generator } from '../fuzz/generator.ts'
import { createKnown, createReader, createRemotes, createSecret, createSpatialDb, keepKnown, sendJudged, treeProblems } from '../fuzz/setup.ts'
import { ApiError } from '../../sw/core/error.ts'
import { EXTERNAL_DATABASE_ERROR, EXTERNAL_SERVICE_ERROR } from '../fuzz/generator.ts'
import { HostileRemote, type HostileMode } from './hostile-remote.ts'

/** Every way the hostile test server misbehaves, each a remote connection of the run. */
const HOSTILE: HostileMode[] = ['huge', 'chunked', 'silent', 'stall', 'not-array', 'truncated', 'nulls', 'deep', 'not-json',
  'html-error', 'ngw-error', 'ok']
/** Small limits, so that a remote holding a request costs the run little (the defaults are tested in hostile-remote.test.ts). */
const LIMITS = { maxBytes: 1024 * 1024, idleMs: 100, totalMs: 1000 }

// Generated requests against the whole app in Node, as the administrator, an ordinary user who
// reads part of the tree, and the guest: no answer may be a 500 (or worse, a throw), a refused
// write changes nothing, nothing the user may not read reaches them, and the tree must be whole
// afterwards. FUZZ_SEED and FUZZ_CASES choose another run; a
// failure names the seed and the request's index, which reproduce it.
const SEED = Number(process.env.FUZZ_SEED ?? 20261123)
const CASES = Number(process.env.FUZZ_CASES ?? 3000)
const PASSWORD = 'fuzz-admin-password'

/** The engines the app runs on: SQLite (the default) and PostgreSQL (a fresh schema of the test cluster). */
const ENGINES: [string, number, () => Promise<AppOptions>][] = [
  ['SQLite', CASES, async () => ({})],
  // A third of the cases (the same seed, so the same first requests): a PostgreSQL case costs 2.4× a SQLite one, and CI's budget is 30 minutes.
  ['PostgreSQL', Math.ceil(CASES / 3), async () => ({ data: postgresData(await (await cluster()).database('fuzz'), { maxConnections: 4 }) })],
]

/**
 * A team's PostGIS database for the run's PostGIS connection and layer (whatever engine the app
 * runs on): a new database of the test cluster with a table of points; its parameters and name.
 */
async function spatialDbTable(): Promise<[Record<string, unknown>, string]> {
  const c = await cluster()
  const database = new URL(await c.separateDatabase('fuzz_team')).pathname.slice(1)
  const client = await c.client(database)
  try {
    await client.query('CREATE TABLE fuzz_points (id serial PRIMARY KEY, name text, n integer, geom geometry(Point, 3857))')
  } finally {
    await client.end()
  }
  return [{ hostname: c.host, port: c.port, database, username: 'postgres', password: 'unused' }, 'fuzz_points']
}

describe.each(ENGINES)('fuzz on %s', (engine, cases, appOptions) => {
  it(`answers ${cases} generated requests (seed ${SEED}) without a 5xx, a throw or a broken tree`, async () => {
    console.log(`fuzz (${engine}): seed ${SEED}, ${cases} cases`)
    const logged: string[] = []
    const hostile = await new HostileRemote().start()
    onTestFinished(() => hostile.close())
    const app = createApp(nodePlatform({ admin: { password: PASSWORD, mustChange: false },
      outboundLimits: { json: LIMITS, listing: LIMITS, file: LIMITS },
      log: (message, err) => {
        // A hostile remote's failure is logged as a 502 of the other server, not an error of this one;
        // so is a team's PostGIS database's (a fuzzed change may point the run's connection at nothing).
        if (err instanceof ApiError && err.status === 502 && err.exception === EXTERNAL_SERVICE_ERROR) return
        if (err instanceof ApiError && err.status === 503 && err.exception === EXTERNAL_DATABASE_ERROR) return
        logged.push(`${message}: ${(err as Error)?.stack ?? err}`)
      } }), await appOptions())
    onTestFinished(async () => { await (await app.services()).data.close() })
    // In process: the same app the Node host serves, without a socket per request.
    const api: Api = {
      host: 'node',
      async request(method, path, opts = {}) {
        const w = toWire(method, path, opts, PASSWORD)
        const body = w.bytesBase64 !== undefined ? Buffer.from(w.bytesBase64, 'base64') : w.body
        const res = await app.fetch(new Request(`http://fuzz.local${w.path}`, { method: w.method, headers: w.headers,
          body: method === 'GET' || method === 'HEAD' ? undefined : body }))
        const headers: Record<string, string> = {}
        res.headers.forEach((v, k) => { headers[k] = v })
        return fromWire(res.status, headers, await res.text())
      },
    }
    const reader = await createReader(api)
    const gen = new Generator(SEED, { ...await createKnown(api, reader), secret: await createSecret(api),
      remotes: await createRemotes(api, HOSTILE.map((m) => hostile.url(m))), spatialdb: await createSpatialDb(api, ...await spatialDbTable()) })
    const statuses = new Map<number, number>()
    const asked: Record<string, number> = {}
    const failures: string[] = []
    const t0 = performance.now()
    for (let i = 0; i < cases; i++) {
      // Deletes are fuzzed too: the objects the requests aim at are made again when gone.
      if (i % 25 === 0) gen.known = await keepKnown(api, gen.known)
      const req = gen.next()
      const { method, path, opts } = req
      const what = () => `#${i} ${method} ${path.slice(0, 120)} ${JSON.stringify(opts).slice(0, 300)}`
      let status: number
      try {
        const { res, problems } = await sendJudged(api, gen.known, req)
        status = res.status
        for (const p of problems) failures.push(`${what()} → ${p}`)
        asked[req.as] = (asked[req.as] ?? 0) + 1
      } catch (err) {
        failures.push(`${what()} → threw ${(err as Error).stack}`)
        continue
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
    console.log(`fuzz (${engine}): ${cases} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s; statuses`,
      Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])), 'by', asked)
    expect(failures, `seed ${SEED}`).toEqual([])
    expect(logged, `seed ${SEED}: unexpected errors were logged`).toEqual([])
    expect(await treeProblems(api)).toEqual([])
  }, 300_000)
})
