/**
 * Publishing a web map made in the app to the team's server (sw/sync/webmap/publish*.ts): the
 * app's backend (`local`: a Node host, or the service worker in Chromium) and the team's server
 * (`remote`: a Node host). Run Node↔Node by test/api/webmap-publish.test.ts and Chromium↔Node by
 * test/e2e/webmap-publish-sw.spec.ts (which then opens the map from the team's server).
 */
import type { Api, Expect } from './harness.ts'
import { expectError, uniq } from './harness.ts'
import { makeLayer, makeStyle } from './render-helpers.ts'
import { colours, connect, merc, progressToken, type OfflineEnv } from './webmap-offline-cases.ts'
import { createUser, rule, setRules } from './cases/permissions.ts'
import { fixture, qmlStyle } from './cases/render-qml.ts'

export type PublishEnv = Omit<OfflineEnv, 'tileBlobs' | 'remoteTiles' | 'replaceRemoteRaster'>

export interface PublishCase { name: string; run(env: PublishEnv, expect: Expect): Promise<void> }

const RED = '<map><layer><class><style><color red="255" green="0" blue="0"/><size>12</size><symbol>circle</symbol></style></class></layer></map>'
export const WELLS = [[10, 50], [9.98, 49.98], [10.02, 50.02]]
/** The z8 tile over the wells. */
export const WELLS_TILE = [8, 135, 86] as const

export interface DeviceMap { webmap: number; layer: number; style: number }

/** On the device: a point layer of three wells, a red style, and a web map of it with settings, a basemap of each kind and an annotation. */
export async function deviceMap(api: Api, expect: Expect): Promise<DeviceMap> {
  const pts = WELLS.map(([lon, lat], i) => ({ geom: `POINT(${merc(lon!, lat!).join(' ')})`, fields: { name: `w${i}` } }))
  const layer = await makeLayer(api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }], pts)
  const style = await makeStyle(api, expect, layer, RED)
  const basemap = async (url: string) => (await api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'basemap_layer', parent: { id: 0 }, display_name: uniq('Basemap') }, basemap_layer: { url, copyright_text: 'OSM' } } })).body.id as number
  const osm = await basemap('https://tile.example.org/{z}/{x}/{y}.png')
  const kept = await basemap('/api/resource/1/webmap_offline/tile/0/{z}/{x}/{y}')
  const res = await api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'webmap', parent: { id: 0 }, display_name: uniq('Survey map') },
    webmap: { title: 'Survey', initial_extent: [9.9, 49.9, 10.1, 50.1], annotation_enabled: true, bookmark_resource: { id: layer },
      options: { 'webmap.identification_geometry': true },
      root_item: { item_type: 'root', children: [{ item_type: 'group', display_name: 'Field', group_expanded: true, children: [
        { item_type: 'layer', display_name: 'Wells', layer_style_id: style, layer_adapter: 'tile', layer_enabled: true, layer_transparency: 10 }] }] } },
    basemap_webmap: { basemaps: [{ resource_id: osm, display_name: 'OSM', enabled: true, opacity: 0.5 }, { resource_id: kept, display_name: 'Kept', enabled: false }] } } })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  const webmap = res.body.id as number
  const note = await api.request('POST', `/api/resource/${webmap}/annotation/`, { body: { geom: `POINT(${merc(10, 50).join(' ')})`, public: true, description: 'dry well' } })
  expect(note.status).toBe(200)
  return { webmap, layer, style }
}

/** A group on the team's server to publish into. */
export async function teamGroup(remote: Api, expect: Expect, permissions?: unknown[]): Promise<number> {
  const res = await remote.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: uniq('Published'),
    ...(permissions ? { permissions } : {}) } } })
  expect(res.status).toBe(201)
  return res.body.id as number
}

export async function publish(api: Api, webmap: number, connection: number, parent: number, headers?: Record<string, string>) {
  return api.request('POST', `/api/resource/${webmap}/webmap_publish`, { headers, body: { connection: { id: connection }, parent: { id: parent } } })
}

const VALIDATION = 'nextgisweb.core.exception.ValidationError'

export const publishCases: PublishCase[] = [
  {
    name: 'publish: a Stop while the features go up answers 409 and leaves nothing: nothing there, the layer unlinked here, nothing remembered',
    async run(env, expect) {
      // Enough features that their push is under way when the Stop comes.
      const pts = Array.from({ length: 4000 }, (_, i) => ({ geom: `POINT(${merc(10 + (i % 80) / 2000, 50 + Math.floor(i / 80) / 2000).join(' ')})`,
        fields: { name: `p${i}` } }))
      const layer = await makeLayer(env.local, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }], pts)
      const style = await makeStyle(env.local, expect, layer, RED)
      const made = await env.local.request('POST', '/api/resource/', { body: { resource: { cls: 'webmap', parent: { id: 0 }, display_name: uniq('Stopped map') },
        webmap: { root_item: { item_type: 'root', children: [{ item_type: 'layer', display_name: 'Points', layer_style_id: style, layer_adapter: 'image', layer_enabled: true }] } } } })
      expect(made.status).toBe(201)
      const connection = await connect(env as OfflineEnv, expect)
      const parent = await teamGroup(env.remote, expect)
      const token = progressToken('publish-stop')
      const job = publish(env.local, made.body.id, connection, parent, { 'X-Outpost-Progress': token })
      let stage = ''
      for (let i = 0; i < 2000 && stage !== 'features'; i++) {
        const p = await env.local.request('GET', `/api/component/outpost/progress/${token}`)
        stage = p.status === 200 ? p.body.stage : ''
      }
      expect(stage).toBe('features')
      expect((await env.local.request('DELETE', `/api/component/outpost/progress/${token}`)).status).toBe(202)
      const res = await job
      expectError(expect, res, 409, 'nextgisweb.core.exception.OperationalError')
      expect((await env.remote.request('GET', `/api/resource/?parent=${parent}`)).body).toEqual([])
      expect((await env.local.request('GET', `/api/resource/${layer}`)).body.vector_layer.remote).toBeUndefined()
      expect((await env.local.request('GET', `/api/resource/${made.body.id}/webmap_publish`)).status).toBe(404)
    },
  },
  {
    name: 'publish: the map, its layer made there with its features and style, settings, basemap and annotation; linked here; a second publish updates it',
    async run(env, expect) {
      const map = await deviceMap(env.local, expect)
      const connection = await connect(env as OfflineEnv, expect)
      const parent = await teamGroup(env.remote, expect)
      const token = `publish-${uniq('t').replace(/[^A-Za-z0-9]/g, '')}`.padEnd(16, '0')
      const res = await publish(env.local, map.webmap, connection, parent, { 'X-Outpost-Progress': token })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const out = res.body
      // Watched as the other jobs are: done, with the map there as its result.
      expect((await env.local.request('GET', `/api/component/outpost/progress/${token}`)).body).toMatchObject({ state: 'done', result: { id: out.id } })
      expect(out).toMatchObject({ updated: false, remembered: true, styles: 1, basemaps: 1, annotations: 1,
        layers: [{ local: map.layer, how: 'created', pushed: 3 }],
        skipped: [{ kind: 'basemap', name: 'Kept', reason: 'its tiles are served by this device only' }] })
      expect(out.url).toBe(`${env.remoteUrl}/embed.html?webmap=${out.id}&panel=1`)
      // There: the map in its group, its item on the copy of the style, the style on the new layer.
      const there = (await env.remote.request('GET', `/api/resource/${out.id}`)).body
      expect(there.resource.parent.id).toBe(out.group)
      expect((await env.remote.request('GET', `/api/resource/${out.group}`)).body.resource.parent.id).toBe(parent)
      const item = there.webmap.root_item.children[0].children[0]
      expect(there.webmap.root_item.children[0]).toMatchObject({ item_type: 'group', display_name: 'Field', group_expanded: true })
      expect(item).toMatchObject({ display_name: 'Wells', layer_adapter: 'tile', layer_enabled: true, layer_transparency: 10 })
      const remoteLayer = out.layers[0].remote as number
      expect(item.style_parent_id).toBe(remoteLayer)
      expect(there.webmap).toMatchObject({ title: 'Survey', initial_extent: [9.9, 49.9, 10.1, 50.1], annotation_enabled: true,
        bookmark_resource: { id: remoteLayer }, options: { 'webmap.identification_geometry': true } })
      expect(there.basemap_webmap.basemaps).toEqual([{ resource_id: expect.any(Number), display_name: 'OSM', enabled: true, opacity: 0.5 }])
      const osm = (await env.remote.request('GET', `/api/resource/${there.basemap_webmap.basemaps[0].resource_id}`)).body.basemap_layer
      expect(osm).toMatchObject({ url: 'https://tile.example.org/{z}/{x}/{y}.png', copyright_text: 'OSM' })
      const layerThere = (await env.remote.request('GET', `/api/resource/${remoteLayer}`)).body
      expect(layerThere.vector_layer).toMatchObject({ srs: { id: 3857 }, geometry_type: 'POINT' })
      expect(layerThere.feature_layer.fields.map((f: { keyname: string; datatype: string }) => [f.keyname, f.datatype])).toEqual([['name', 'STRING']])
      expect((await env.remote.request('GET', `/api/resource/${remoteLayer}/feature_count`)).body.total_count).toBe(3)
      const names = (await env.remote.request('GET', `/api/resource/${remoteLayer}/feature/`)).body.map((f: { fields: { name: string } }) => f.fields.name)
      expect(names.sort()).toEqual(['w0', 'w1', 'w2'])
      // The style draws the wells in red there.
      const drawn = await env.remote.request('GET', `/api/component/render/tile?resource=${item.layer_style_id}&z=${WELLS_TILE[0]}&x=${WELLS_TILE[1]}&y=${WELLS_TILE[2]}`)
      expect(colours(drawn).red).toBeGreaterThan(20)
      const notes = (await env.remote.request('GET', `/api/resource/${out.id}/annotation/`)).body
      expect(notes).toMatchObject([{ description: 'dry well', public: true }])
      // Here: the layer is linked to its copy; what is remembered says where.
      const here = (await env.local.request('GET', `/api/resource/${map.layer}`)).body
      expect(here.vector_layer.remote).toEqual({ connection: { id: connection }, resource: { id: remoteLayer } })
      const remembered = await env.local.request('GET', `/api/resource/${map.webmap}/webmap_publish`)
      expect(remembered.body).toMatchObject({ url: env.remoteUrl, webmap: out.id, group: out.group, annotations: [notes[0].id] })
      // An edit here syncs as for any linked layer.
      const added = await env.local.request('POST', `/api/resource/${map.layer}/feature/`, { body: { geom: `POINT(${merc(10.01, 50.01).join(' ')})`, fields: { name: 'w3' } } })
      expect(added.status).toBe(200)
      expect((await env.local.request('POST', `/api/resource/${map.layer}/sync`)).body).toMatchObject({ status: 'ok', pushed: { created: 1 } })
      expect((await env.remote.request('GET', `/api/resource/${remoteLayer}/feature_count`)).body.total_count).toBe(4)
      // A second publish updates the same map there: the new title, one annotation still, no layer made again.
      expect((await env.local.request('PUT', `/api/resource/${map.webmap}`, { body: { webmap: { title: 'Survey 2' } } })).status).toBe(200)
      const again = await publish(env.local, map.webmap, connection, parent)
      expect(again.status, JSON.stringify(again.body)).toBe(200)
      expect(again.body).toMatchObject({ id: out.id, group: out.group, updated: true, layers: [{ how: 'linked', remote: remoteLayer, pushed: 0 }] })
      const after = (await env.remote.request('GET', `/api/resource/${out.id}`)).body
      expect(after.webmap.title).toBe('Survey 2')
      expect(after.webmap.root_item.children[0].children[0].layer_style_id).toBe(item.layer_style_id)
      expect((await env.remote.request('GET', `/api/resource/${out.id}/annotation/`)).body).toHaveLength(1)
      expect((await env.remote.request('GET', `/api/resource/?parent=${out.group}`)).body.map((r: { resource: { cls: string } }) => r.resource.cls).sort())
        .toEqual(['basemap_layer', 'vector_layer', 'webmap'])
      // Unlinked here, the layer is made there anew on the next publish, and every feature goes up again (its old marks are dropped).
      const unlinked = await env.local.request('PUT', `/api/resource/${map.layer}`, { body: { vector_layer: { remote: null } } })
      expect(unlinked.status).toBe(200)
      expect((await env.local.request('GET', `/api/resource/${map.layer}`)).body.vector_layer.remote).toBeUndefined()
      const anew = await publish(env.local, map.webmap, connection, parent)
      expect(anew.status, JSON.stringify(anew.body)).toBe(200)
      expect(anew.body).toMatchObject({ id: out.id, updated: true, layers: [{ how: 'created', pushed: 4 }] })
      expect(anew.body.layers[0].remote).not.toBe(remoteLayer)
    },
  },
  {
    name: 'publish: a layer linked to that server already is used as it is, its engine and QGIS styles added there; one linked elsewhere is a 422 naming the item; linking refusals',
    async run(env, expect) {
      const remoteLayer = await makeLayer(env.remote, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }],
        [{ geom: `POINT(${merc(10, 50).join(' ')})`, fields: { name: 'team well' } }])
      const connection = await connect(env as OfflineEnv, expect)
      const linked = await env.local.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: uniq('Team wells') },
        vector_layer: { remote: { connection: { id: connection }, resource: { id: remoteLayer } } } } })
      expect(linked.status, JSON.stringify(linked.body)).toBe(201)
      const style = await makeStyle(env.local, expect, linked.body.id, RED)
      const qml = fixture('categorized.qml')
      const qgis = (await qmlStyle(env.local, expect, linked.body.id, qml)).body.id as number
      const wm = await env.local.request('POST', '/api/resource/', { body: { resource: { cls: 'webmap', parent: { id: 0 }, display_name: uniq('Team wells map') },
        webmap: { root_item: { item_type: 'root', children: [{ item_type: 'layer', display_name: 'Team wells', layer_style_id: style, layer_adapter: 'image', layer_enabled: true },
          { item_type: 'layer', display_name: 'By kind', layer_style_id: qgis, layer_adapter: 'tile' }] } } } })
      expect(wm.status).toBe(201)
      // Linking a layer that exists here: refused while it is linked, or when the remote layer lacks one of its fields.
      const twice = await env.local.request('PUT', `/api/resource/${linked.body.id}`, { body: { vector_layer: { remote: { connection: { id: connection }, resource: { id: remoteLayer } } } } })
      expectError(expect, twice, 422, VALIDATION)
      expect(twice.body.message).toMatch(/is linked already/)
      const wider = await makeLayer(env.local, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'depth', datatype: 'REAL' }], [])
      const lacks = await env.local.request('PUT', `/api/resource/${wider}`, { body: { vector_layer: { remote: { connection: { id: connection }, resource: { id: remoteLayer } } } } })
      expectError(expect, lacks, 422, VALIDATION)
      expect(lacks.body.message).toBe(`Remote layer ${remoteLayer} has no field 'depth' of type REAL - at \`$.vector_layer.remote.resource\``)
      expect((await env.local.request('GET', `/api/resource/${wider}`)).body.vector_layer.remote).toBeUndefined()
      // The same server under another spelling of its address is another server to the link: refused, naming the item.
      const other = await env.local.request('POST', '/api/resource/', { body: { resource: { cls: 'remote_connection', parent: { id: 0 }, display_name: uniq('team by name') },
        remote_connection: { url: env.remoteUrl.replace('127.0.0.1', 'localhost'), username: 'administrator', password: env.remotePassword } } })
      const parent = await teamGroup(env.remote, expect)
      const elsewhere = await publish(env.local, wm.body.id, other.body.id, parent)
      expectError(expect, elsewhere, 422, VALIDATION)
      expect(elsewhere.body.message).toBe(`Layer item 'Team wells': its layer is linked to a layer of ${env.remoteUrl}; it can only be published there.`)
      expect((await env.remote.request('GET', `/api/resource/?parent=${parent}`)).body).toEqual([])
      // Two at once: one publishes, the other is refused while it runs.
      const both = await Promise.all([publish(env.local, wm.body.id, connection, parent), publish(env.local, wm.body.id, connection, parent)])
      expect(both.map((r) => r.status).sort(), JSON.stringify(both.map((r) => r.body))).toEqual([200, 409])
      const res = both.find((r) => r.status === 200)!
      expectError(expect, both.find((r) => r.status === 409)!, 409, 'outpost.webmap_publish.PublishRunning')
      expect(res.body.layers).toEqual([{ name: expect.any(String), local: linked.body.id, remote: remoteLayer, how: 'linked', pushed: 0 }])
      const item = (await env.remote.request('GET', `/api/resource/${res.body.id}`)).body.webmap.root_item.children[0]
      expect(item).toMatchObject({ display_name: 'Team wells', style_parent_id: remoteLayer, layer_adapter: 'image' })
      expect((await env.remote.request('GET', `/api/resource/${item.layer_style_id}`)).body.engine_style.xml).toBe(RED)
      // The QGIS style goes as its QML file.
      const byKind = (await env.remote.request('GET', `/api/resource/${res.body.id}`)).body.webmap.root_item.children[1]
      expect(byKind).toMatchObject({ display_name: 'By kind', style_parent_id: remoteLayer })
      expect((await env.remote.request('GET', `/api/resource/${byKind.layer_style_id}/qml`)).text).toBe(qml)
    },
  },
  {
    name: 'publish: a refusal there mid-way is a 422 naming it and leaves nothing there or linked here; bad requests are refused before anything',
    async run(env, expect) {
      const map = await deviceMap(env.local, expect)
      // The account there may make everything in the group, but not write a layer's features: the last step fails.
      const user = await createUser(env.remote, expect)
      const parent = await teamGroup(env.remote, expect)
      await setRules(env.remote, expect, parent, [...['read', 'create', 'update', 'delete', 'manage_children'].map((p) => rule(user.id, 'resource', p)),
        rule(user.id, 'data', 'read'), rule(user.id, 'data', 'write'), rule(user.id, 'webmap', 'annotation_read'), rule(user.id, 'webmap', 'annotation_write'),
        rule(user.id, 'data', 'write', true, 'deny', 'vector_layer')])
      const res = await env.local.request('POST', '/api/resource/', { body: { resource: { cls: 'remote_connection', parent: { id: 0 }, display_name: uniq('team as user') },
        remote_connection: { url: env.remoteUrl, username: user.keyname, password: 'pw-' + user.keyname } } })
      expect(res.status).toBe(201)
      const connection = res.body.id as number
      const refused = await publish(env.local, map.webmap, connection, parent)
      expectError(expect, refused, 422, 'outpost.webmap_publish.RemoteWriteRefused')
      expect(refused.body.message).toMatch(new RegExp(`does not let ${user.keyname} add the features of layer '.+': publishing a web map needs data.write`))
      // Nothing stays there (the group, layer, style, basemap, map and annotation made before the refusal are deleted); the layer here is unlinked again.
      expect((await env.remote.request('GET', `/api/resource/?parent=${parent}`)).body).toEqual([])
      expect((await env.local.request('GET', `/api/resource/${map.layer}`)).body.vector_layer.remote).toBeUndefined()
      expectError(expect, await env.local.request('GET', `/api/resource/${map.webmap}/webmap_publish`), 404, 'outpost.webmap_publish.NotPublished')
      // Its metadata item written by hand with text that is not ours: still not published, not a 500.
      for (const text of ['{not json', '{"url": 5}']) {
        expect((await env.local.request('PUT', `/api/resource/${map.webmap}`, { body: { resmeta: { items: { 'outpost.published': text } } } })).status).toBe(200)
        expectError(expect, await env.local.request('GET', `/api/resource/${map.webmap}/webmap_publish`), 404, 'outpost.webmap_publish.NotPublished')
      }
      expect((await env.local.request('PUT', `/api/resource/${map.webmap}`, { body: { resmeta: { items: {} } } })).status).toBe(200)
      // Bad requests: nothing is asked there.
      for (const body of [{ connection: { id: connection }, extra: 1 }, { parent: { id: parent } }, { connection: connection }]) {
        expectError(expect, await env.local.request('POST', `/api/resource/${map.webmap}/webmap_publish`, { body }), 422, VALIDATION)
      }
      const notConnection = await publish(env.local, map.webmap, map.layer, parent)
      expectError(expect, notConnection, 422, VALIDATION)
      expect(notConnection.body.message).toMatch(/is not a remote connection/)
      const notMap = await publish(env.local, map.layer, connection, parent)
      expectError(expect, notMap, 422, VALIDATION)
      expect(notMap.body.message).toMatch(/is not a web map/)
      const notGroup = await publish(env.local, map.webmap, connection, 999_999)
      expectError(expect, notGroup, 422, VALIDATION)
      expect(notGroup.body.message).toMatch(/is not a group/)
      expect((await env.remote.request('GET', `/api/resource/?parent=${parent}`)).body).toEqual([])
      // Here, a person who may read the map but not write its layer is refused before anything goes there.
      const reader = await createUser(env.local, expect)
      const admin = await connect(env as OfflineEnv, expect)
      await setRules(env.local, expect, admin, [rule(reader.id, 'resource', 'read', false), rule(reader.id, 'connection', 'connect', false)])
      await setRules(env.local, expect, map.webmap, [rule(reader.id, 'resource', 'read', false)])
      await setRules(env.local, expect, map.style, [rule(reader.id, 'resource', 'read', false), rule(reader.id, 'data', 'read', false)])
      await setRules(env.local, expect, map.layer, [rule(reader.id, 'resource', 'read', false), rule(reader.id, 'data', 'read', false)])
      const notWriter = await env.local.request('POST', `/api/resource/${map.webmap}/webmap_publish`, { auth: reader.auth,
        body: { connection: { id: admin }, parent: { id: parent } } })
      expectError(expect, notWriter, 403, 'nextgisweb.core.exception.InsufficientPermissions')
      expect(notWriter.body.data).toMatchObject({ resource: { id: map.layer }, scope: 'resource', permission: 'update' })
      expect((await env.remote.request('GET', `/api/resource/?parent=${parent}`)).body).toEqual([])
      // Published again with an account that may write, the layer links anew and all its features go up.
      const ok = await publish(env.local, map.webmap, admin, await teamGroup(env.remote, expect))
      expect(ok.status, JSON.stringify(ok.body)).toBe(200)
      expect(ok.body.layers).toMatchObject([{ how: 'created', pushed: 3 }])
    },
  },
]
