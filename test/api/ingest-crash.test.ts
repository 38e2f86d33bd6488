import { afterAll, describe, expect, it } from 'vitest'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Api } from './harness.ts'
import { apiOf, kill, startHost, type Host } from './node-process.ts'
import { pointsGeojson, utf8 } from './ingest-files.ts'

// An ingest is one transaction (ARCHITECTURE.md "Storage"; issue 9 §4): the Node host is
// SIGKILLed at several points of a vector ingest (GDAL reading, features being checked, the
// layer's database being written) and restarted on the same folder. No half-made layer may
// be there, and once the layer sweep has run, no layer database without its layer.

const FEATURES = 20_000
const dirs: string[] = []
const hosts: Host[] = []
afterAll(async () => {
  for (const h of hosts) await kill(h)
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

/** Every vector layer under `parent` is whole: all its features are there. */
async function layersWhole(api: Api, parent: number): Promise<number> {
  const children = (await api.request('GET', `/api/resource/?parent=${parent}`)).body as Array<{ resource: { id: number; cls: string } }>
  for (const c of children.filter((x) => x.resource.cls === 'vector_layer')) {
    expect((await api.request('GET', `/api/resource/${c.resource.id}/feature_count`)).body).toEqual({ total_count: FEATURES })
  }
  return children.length
}

/** The databases saved in data folder `dir` (read from the folder: the running host holds its lock). */
async function listDatabases(dir: string): Promise<string[]> {
  return (await readdir(join(dir, 'db'))).filter((n) => n.endsWith('.sqlite')).map((n) => n.slice(0, -'.sqlite'.length))
}

/** Every saved layer database belongs to an existing vector layer (after the sweep a first layer open runs). */
async function noOrphans(api: Api, dir: string, probe: number): Promise<string[]> {
  const before = await listDatabases(dir)
  await api.request('GET', `/api/resource/${probe}/feature_count`)
  for (const name of await listDatabases(dir)) {
    const m = /^layer-(\d+)$/.exec(name)
    if (!m) continue
    const res = await api.request('GET', `/api/resource/${m[1]}`)
    expect(res.status, `${name} has no resource`).toBe(200)
    expect(res.body.resource.cls).toBe('vector_layer')
  }
  return before
}

describe('an ingest on the Node host killed midway', () => {
  it('leaves no half-made layer and no orphan layer database', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outpost-ingest-crash-'))
    dirs.push(dir)
    let host = await startHost(dir)
    hosts.push(host)
    let api = apiOf(host.base)
    const parent = (await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'ingests' } } })).body.id
    const probe = (await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'probe' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT' } } })).body.id
    const file = Buffer.from(utf8(pointsGeojson(FEATURES))).toString('base64')
    const upload = (a: Api) => a.request('PUT', '/api/component/file_upload/', { bytesBase64: file,
      headers: { 'content-disposition': 'attachment; filename="points.geojson"' } })
    for (const [round, stages] of [[1, ['reading', 'converting']], [2, ['checking']], [3, ['writing', 'saving']]] as const) {
      const source = (await upload(api)).body
      const token = `crash-round-${round}-${Date.now()}`
      const create = api.request('POST', '/api/resource/', { headers: { 'x-outpost-progress': token }, body: {
        resource: { cls: 'vector_layer', parent: { id: parent }, display_name: `round ${round}` }, vector_layer: { srs: { id: 3857 }, source } } })
        .catch(() => undefined)
      // Kill as soon as the ingest is seen in the wanted stage (or has ended, if it was faster).
      let seen = ''
      while (!(stages as readonly string[]).includes(seen)) {
        const p = await api.request('GET', `/api/component/outpost/progress/${token}`).catch(() => undefined)
        if (p?.body?.state && p.body.state !== 'running') break
        seen = p?.body?.stage ?? ''
        await new Promise((r) => setTimeout(r, 20))
      }
      await kill(host)
      await create
      host = await startHost(dir)
      hosts.push(host)
      api = apiOf(host.base)
      const layers = await layersWhole(api, parent)
      const images = await noOrphans(api, dir, probe)
      console.info(`round ${round}: killed at '${seen}', ${layers} layer(s) after the restart, images before the sweep: ${images.join(', ')}`)
    }
  }, 180_000)
})
