/**
 * Taking a web map offline on the Node host, what only a Node host can show: the host killed
 * (SIGKILL, its own process) while the tiles come keeps what came, listed incomplete, and the
 * restarted host resumes it fetching only what is missing (webmap-offline-cases.ts
 * `resumeChecked`, which the worker's stop case runs too); and a raster over this host's
 * upload limit (made small here) listed as missing with the reason, or, grown over it since it
 * was taken, not renewed by a refresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import { apiOf, kill, startHost, type Host } from './node-process.ts'
import type { Api, Expect } from './harness.ts'
import { BIG, connect, countTiles, offlineFixtures, progressToken, rasterMap, reachTiles, remoteRaster, replaceRaster, resumeChecked, takeRasterMap, teamMap,
  type OfflineEnv } from './webmap-offline-cases.ts'
import { TIFFS } from './ingest-files.ts'

const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()))

describe('webmap offline on the Node host: killed mid-job, a raster over the upload limit (taken or refreshed)', () => {
  let remote: Awaited<ReturnType<typeof startNodeApi>>
  let tiles: ReturnType<typeof countTiles>
  let dir: string
  let host: Host | undefined
  beforeAll(async () => {
    await offlineFixtures()
    remote = await startNodeApi()
    tiles = countTiles(remote.server)
    dir = await mkdtemp(join(tmpdir(), 'outpost-wmres-'))
  })
  afterAll(async () => {
    if (host) await kill(host)
    await close(remote.server)
    await rm(dir, { recursive: true, force: true })
  })
  const envOf = (local: Api): OfflineEnv => ({ local, remote: remote.api, remoteUrl: remote.base, remotePassword: NODE_ADMIN_PASSWORD,
    // The host's blobs are files of its data folder (a killed write leaves only a dot-named temporary file).
    tileBlobs: async (prefix) => (await readdir(join(dir, 'blobs'))).filter((n) => n.startsWith(prefix)).length, ...tiles,
    replaceRemoteRaster: replaceRaster(remote.app) })

  it('a host killed while the tiles come keeps the pulled layer and the stored tiles; restarted, it resumes only what is missing', async () => {
    const E = expect as unknown as Expect
    host = await startHost(dir)
    let env = envOf(apiOf(host.base))
    const map = await teamMap(env, E, { twoLive: true })
    const connection = await connect(env, E)
    const token = progressToken('kill')
    const job = env.local.request('POST', '/api/component/outpost/webmap_offline/', { headers: { 'x-outpost-progress': token },
      body: { connection: { id: connection }, webmap: { id: map.webmap }, ...BIG } }).catch((err: unknown) => err)
    await reachTiles(env, E, token)
    await kill(host)
    expect(await job).toBeInstanceOf(Error)
    host = await startHost(dir)
    env = envOf(apiOf(host.base))
    const [mine] = (await env.local.request('GET', '/api/component/outpost/webmap_offline/')).body as { id: number; stopped: string }[]
    expect(mine!.stopped).toBe('the app stopped while it was saved')
    await resumeChecked(env, E, mine!.id, map)
  }, 60_000)

  it('a raster layer over this host\'s upload limit is listed as missing with the reason; the map is saved without it', async () => {
    const E = expect as unknown as Expect
    const local = await startNodeApi({ platform: { uploadMaxSize: 1024 } })
    try {
      const env = envOf(local.api)
      const { layer, wm } = await rasterMap(env, E)
      const { id, saved } = await takeRasterMap(env, E, await connect(env, E), wm.body.id)
      const name = (await remote.api.request('GET', `/api/resource/${layer.body.id}`)).body.resource.display_name
      expect(saved).toMatchObject({ state: 'saved', layers: [], size: { rasters: 0 },
        missing: [{ kind: 'layer', name, reason: expect.stringMatching(/^its file is larger than this device takes: .*more than 1024 bytes/) }] })
      expect((await local.api.request('GET', `/api/resource/?parent=${id}`)).body.map((r: { resource: { cls: string } }) => r.resource.cls)).toEqual(['webmap'])
    } finally {
      await close(local.server)
      await (await local.app.services()).close()
    }
  }, 60_000)

  it('a raster grown over this host\'s upload limit is not renewed by a refresh: the copy kept stays and draws, the reason is said', async () => {
    const E = expect as unknown as Expect
    // The team's raster and a larger one to take its place (stored, about 0.9 and 1.2 KB); the host takes files up to the first's size.
    const { layer, wm, style } = await rasterMap(envOf(remote.api), E, [], [], TIFFS.rgba3857)
    const larger = await remoteRaster(envOf(remote.api), E, await TIFFS.rgb())
    const size = async (id: number) => Buffer.from((await remote.api.request('GET', `/api/resource/${id}/download`)).bodyBase64 ?? '', 'base64').length
    const limit = await size(layer.body.id)
    expect(await size(larger.body.id)).toBeGreaterThan(limit)
    const local = await startNodeApi({ platform: { uploadMaxSize: limit } })
    try {
      const env = envOf(local.api)
      const { id, saved } = await takeRasterMap(env, E, await connect(env, E), wm.body.id)
      expect(saved).toMatchObject({ missing: [], layers: [{ raster: { bytes: limit } }] })
      await env.replaceRemoteRaster(layer.body.id, larger.body.id)
      const refreshed = await local.api.request('POST', `/api/resource/${id}/webmap_offline`)
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
      expect(refreshed.body.rasters).toEqual([{ name: saved.layers[0].name, renewed: false, bytes: 0,
        reason: expect.stringMatching(new RegExp(`^its file is larger than this device takes: .*more than ${limit} bytes`)) }])
      expect(refreshed.body.saved).toMatchObject({ layers: [{ local: saved.layers[0].local, raster: { bytes: limit } }], styles: { [style]: saved.styles[style] },
        missing: [{ kind: 'layer', name: saved.layers[0].name, reason: expect.stringMatching(/^the refresh could not renew its copy: .*; the copy kept before stays$/) }] })
      // The kept copy is the first file still (TIFFS.rgba3857 is transparent where the map shows it: its size tells it from TIFFS.rgb), and draws.
      const theirs = (await remote.api.request('GET', `/api/resource/${larger.body.id}`)).body.raster_layer
      const kept = (await local.api.request('GET', `/api/resource/${saved.layers[0].local}`)).body.raster_layer
      expect([kept.xsize, kept.ysize]).not.toEqual([theirs.xsize, theirs.ysize])
      expect((await local.api.request('GET', `/api/component/render/tile?resource=${saved.styles[style]}&z=8&x=149&y=73`)).status).toBe(200)
      expect((await local.api.request('GET', `/api/resource/?parent=${id}`)).body.map((r: { resource: { id: number } }) => r.resource.id).sort())
        .toEqual([saved.layers[0].local, saved.webmap].sort())
    } finally {
      await close(local.server)
      await (await local.app.services()).close()
    }
  }, 60_000)
})
