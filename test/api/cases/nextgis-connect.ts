/**
 * QGIS's NextGIS Connect plugin (3.5) editing a versioned layer in detached mode, replayed
 * call by call (reference clients.md; the plugin's fill, fetch-delta and upload tasks): what
 * it sends, and every check it makes on the answers.
 */
import type { Api, ApiCase, ApiResponse, Expect } from '../harness.ts'
import { pointWkb, versionedLayer } from './versioning.ts'

/** The plugin parses a body as JSON only when Content-Type is exactly `application/json`. */
function jsonOf(expect: Expect, res: ApiResponse): any { // reason: the plugin indexes into the JSON
  expect(res.headers['content-type']).toBe('application/json')
  return JSON.parse(res.text)
}

/** The keyword arguments the plugin's action classes take (`actions.py`): anything else is a TypeError there. */
const ACTION_KEYS: Record<string, string[] | null> = {
  'continue': ['url'],
  'feature.create': ['fid', 'vid', 'geom', 'fields'],
  'feature.update': ['fid', 'vid', 'geom', 'fields'],
  'feature.delete': ['fid', 'vid'],
  'description.put': ['fid', 'vid', 'value'],
  'attachment.create': null, 'attachment.update': null, 'attachment.delete': null,
}

/** `ngw_connection.get(url)` on a fetch or continue URL: the plugin joins URLs, absolute ones as they are. */
async function getUrl(api: Api, expect: Expect, url: string) {
  expect(url).toMatch(/^https?:\/\/[^/]+\/api\/resource\/\d+\/feature\/changes\/fetch\?/)
  return jsonOf(expect, await api.request('GET', new URL(url).pathname + new URL(url).search))
}

/** FetchDeltaTask / FillLayerWithVersioning: every page until `[]`, each ending with a continue action. */
async function fetchActions(api: Api, expect: Expect, fetchUrl: string) {
  const actions: Record<string, unknown>[] = []
  let page = await getUrl(api, expect, fetchUrl) as Record<string, unknown>[]
  while (page.length > 0) {
    for (const a of page) {
      const keys = ACTION_KEYS[a.action as string]
      expect(keys, `action ${a.action} is one the plugin knows`).not.toBeUndefined()
      if (keys) for (const k of Object.keys(a)) if (k !== 'action') expect(keys).toContain(k)
    }
    actions.push(...page)
    const cont = page[page.length - 1]!
    expect('url' in cont).toBe(true)
    page = await getUrl(api, expect, cont.url as string)
  }
  return actions.filter((a) => a.action !== 'continue')
}

export const nextgisConnectCases: ApiCase[] = [
  {
    name: 'NextGIS Connect detached editing: pkg_version, layer, fill, upload through a transaction, fetch delta',
    async run(api, expect) {
      // The plugin checks the server version first: nextgisweb 5.2 to 5.5.
      const pkg = jsonOf(expect, await api.request('GET', '/api/component/pyramid/pkg_version'))
      const [major, minor] = String(pkg.nextgisweb).split('.').map(Number)
      expect(major).toBe(5)
      expect(minor).toBeGreaterThanOrEqual(2)
      expect(minor).toBeLessThanOrEqual(5)

      const { layer } = await versionedLayer(api, expect)
      await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [
        { geom: 'POINT(100 200)', fields: { name: 'server feature', n: 1 } },
        { geom: 'POINT(300 400)', fields: { name: 'to be deleted' } }] })

      // _get_layer: the resource, its versioning state and structure.
      const res = jsonOf(expect, await api.request('GET', `/api/resource/${layer}`))
      const versioning = res.feature_layer.versioning
      expect(versioning).toEqual({ enabled: true, epoch: expect.any(Number), latest: 2 })
      const fields = res.feature_layer.fields.map((f: { id: number; keyname: string; datatype: string }) =>
        ({ id: f.id, keyname: f.keyname, datatype: f.datatype }))
      const byKey = Object.fromEntries(fields.map((f: { keyname: string; id: number }) => [f.keyname, f.id]))

      // FillLayerWithVersioning: check without parameters, then the feed.
      const fill = jsonOf(expect, await api.request('GET', `/api/resource/${layer}/feature/changes/check`))
      expect(fill).toMatchObject({ epoch: versioning.epoch, initial: 0, target: 2, geometry_type: 'POINT', srs: { id: 3857 }, fields })
      expect(Number.isNaN(Date.parse(fill.tstamp))).toBe(false)
      const filled = await fetchActions(api, expect, fill.fetch)
      expect(filled.map((a) => a.action)).toEqual(['feature.create', 'feature.create'])
      const [kept, doomed] = filled.map((a) => ({ fid: a.fid as number, vid: a.vid as number }))
      let version = fill.target as number

      // UploadChangesTask: one transaction, operations in batches with running sequence numbers.
      const tx = jsonOf(expect, await api.request('POST', `/api/resource/${layer}/feature/transaction/`, { body: { epoch: versioning.epoch } }))
      expect(tx).toEqual({ id: expect.any(Number), started: expect.any(String) })
      const item = `/api/resource/${layer}/feature/transaction/${tx.id}`
      const batch1 = [[0, { action: 'feature.create', geom: pointWkb(500, 600), fields: [[byKey.name, 'from QGIS'], [byKey.day, '2024-07-01']] }],
        [1, { action: 'feature.update', fid: kept!.fid, vid: kept!.vid, fields: [[byKey.n, 42]] }]]
      const batch2 = [[2, { action: 'feature.delete', fid: doomed!.fid, vid: doomed!.vid }]]
      for (const b of [batch1, batch2]) expect(jsonOf(expect, await api.request('PUT', item, { body: b }))).toBeNull()
      const commit = jsonOf(expect, await api.request('POST', item, { headers: { 'x-lunkwill': 'suggest' } }))
      expect(commit.status).toBe('committed')
      const result = jsonOf(expect, await api.request('GET', item))
      // TransactionApplier: as many results as actions, of the same types, creates with their fid.
      expect(result).toHaveLength(3)
      expect(result.map((r: [number, { action: string }]) => r[1].action)).toEqual(['feature.create', 'feature.update', 'feature.delete'])
      const createdFid = result[0][1].fid as number
      expect(createdFid).toEqual(expect.any(Number))

      // Someone edits on the server meanwhile (the web client, plain feature API).
      await api.request('PUT', `/api/resource/${layer}/feature/${kept!.fid}`, { body: { fields: { name: 'edited online' } } })

      // FetchDeltaTask: from the last known version, with both extensions.
      const delta = jsonOf(expect, await api.request('GET',
        `/api/resource/${layer}/feature/changes/check?epoch=${versioning.epoch}&initial=${version}&extensions=attachment%2Cdescription`))
      expect(delta).toMatchObject({ epoch: versioning.epoch, initial: version, target: 4, geometry_type: 'POINT', srs: { id: 3857 }, fields })
      const actions = await fetchActions(api, expect, delta.fetch)
      expect(actions).toEqual([
        { action: 'feature.update', fid: kept!.fid, vid: 4, fields: [[byKey.name, 'edited online'], [byKey.n, 42]] },
        { action: 'feature.delete', fid: doomed!.fid, vid: 3 },
        { action: 'feature.create', fid: createdFid, vid: 3, geom: pointWkb(500, 600), fields: [[byKey.name, 'from QGIS'], [byKey.day, '2024-07-01']] }])
      version = delta.target

      // Nothing new: 204 (the plugin reads a None result).
      const none = await api.request('GET', `/api/resource/${layer}/feature/changes/check?epoch=${versioning.epoch}&initial=${version}&extensions=attachment%2Cdescription`)
      expect(none.status).toBe(204)
      expect(none.text).toBe('')

      // An upload made against an old version is refused by the lock, and the plugin disposes of it.
      const stale = jsonOf(expect, await api.request('POST', `/api/resource/${layer}/feature/transaction/`, { body: { epoch: versioning.epoch } }))
      const staleItem = `/api/resource/${layer}/feature/transaction/${stale.id}`
      await api.request('PUT', staleItem, { body: [[0, { action: 'feature.update', fid: kept!.fid, vid: kept!.vid, fields: [[byKey.n, 0]] }]] })
      const refused = jsonOf(expect, await api.request('POST', staleItem, { headers: { 'x-lunkwill': 'suggest' } }))
      expect(refused).toEqual({ status: 'errors', errors: [[0, { error: 'feature.conflict', status_code: 409, message: 'Feature version conflict' }]] })
      expect(jsonOf(expect, await api.request('DELETE', staleItem))).toBeNull()
      expect(jsonOf(expect, await api.request('GET', `/api/resource/${layer}/feature/${kept!.fid}`)).fields.n).toBe(42)
    },
  },
]
