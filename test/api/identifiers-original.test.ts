/**
 * The Node host with `identifiers: 'original'` (`npm run serve -- --identifiers original`):
 * every answer names classes, class members and vector-tile layers as the original does
 * (core/identifiers), for the original's clients; requests in the spec's names still work.
 * The default (the spec's names) is what every other API test sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import type { Api } from './harness.ts'
import { expectError } from './harness.ts'
import { startNodeApi } from './node-client.ts'
import { bytesOf, decodeTile } from './mvt-decode.ts'

/** The spec's names that have an original spelling: none may reach an answer. */
const SPEC_ONLY = /engine_style|spatialdb_connection|spatialdb_layer/
const XML = '<map><layer><class><style><color red="230" green="20" blue="20"/></style></class></layer></map>'

let api: Api
let server: Server
let layer: number
let style: number

beforeAll(async () => {
  ({ api, server } = await startNodeApi({ app: { identifiers: 'original' } }))
  const made = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'Original names' },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } } })
  layer = made.body.id
  await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [{ geom: 'POINT(1000 2000)', fields: { name: 'a' } }] })
  const users = await api.request('GET', '/api/component/auth/user/?brief=true')
  const guest = (users.body as { id: number; keyname: string }[]).find((u) => u.keyname === 'guest')!.id
  // Created in the spec's names: input takes both spellings whatever answers use.
  const s = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'engine_style', parent: { id: layer }, display_name: 'XML',
    permissions: [{ action: 'allow', principal: { id: guest }, identity: 'engine_style', scope: 'data', permission: 'read', propagate: false }] },
  engine_style: { xml: XML } } })
  expect(s.status).toBe(201)
  style = s.body.id
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('answers in the original\'s names (--identifiers original)', () => {
  it('GET, the children listing and search name the class, its member and ACL rules as the original', async () => {
    const got = await api.request('GET', `/api/resource/${style}`)
    expect(got.body.resource.cls).toBe('mapserver_style')
    expect(got.body.mapserver_style).toEqual({ xml: XML })
    expect(got.body.resource.permissions[0].identity).toBe('mapserver_style')
    expect(got.text).not.toMatch(SPEC_ONLY)
    // Everything else of the object is as the spec's answer has it, in the same order.
    expect(Object.keys(got.body)).toEqual(['resource', 'resmeta', 'social', 'mapserver_style'])
    expect(got.body.resource.interfaces).toContain('IRenderableStyle')

    const kids = await api.request('GET', `/api/resource/?parent=${layer}`)
    expect(kids.body.map((r: { resource: { cls: string } }) => r.resource.cls)).toEqual(['mapserver_style'])
    expect(kids.body[0].mapserver_style).toEqual({ xml: XML })
    expect(kids.text).not.toMatch(SPEC_ONLY)

    for (const cls of ['mapserver_style', 'engine_style']) {
      const found = await api.request('GET', `/api/resource/search/?cls=${cls}&parent_id=${layer}`)
      expect(found.body.map((r: { resource: { id: number; cls: string } }) => [r.resource.id, r.resource.cls])).toEqual([[style, 'mapserver_style']])
    }
    const page = await api.request('GET', `/api/resource/search/?parent_id=${layer}&serialization=full&limit=5`)
    expect(page.body.items[0].mapserver_style).toEqual({ xml: XML })
    expect(page.body.total_count).toBe(1)
    expect(page.text).not.toMatch(SPEC_ONLY)
  })

  it('search orders by type as the answers name the classes, and cls__like / cls__ilike match either spelling', async () => {
    const group = (await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'Types' } } })).body.id
    const sub = (await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: group }, display_name: 'A group' } } })).body.id
    // Kept without connecting (the host connects only when it must).
    const conn = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'postgis_connection', parent: { id: group }, display_name: 'A connection' },
      postgis_connection: { hostname: '127.0.0.1', port: 1, database: 'gis', username: 'ngw', password: 'x' } } })
    expect(conn.status).toBe(201)
    const ids = async (query: string) => ((await api.request('GET', `/api/resource/search/?parent=${group}&${query}`)).body.items as { resource: { id: number } }[])
      .map((r) => r.resource.id)
    // postgis_connection < resource_group, although storage's spatialdb_connection sorts after it.
    expect(await ids('order=type')).toEqual([conn.body.id, sub])
    expect(await ids('order=-type')).toEqual([sub, conn.body.id])
    expect(await ids('order=type&limit=1&offset=1')).toEqual([sub])
    for (const like of ['cls__like=postgis%', 'cls__like=spatialdb_%', 'cls__ilike=POSTGIS_C%', 'cls__like=%_connection']) {
      expect(await ids(`${like}&limit=10`), like).toEqual([conn.body.id])
    }
    expect(await ids('cls__like=postgis&limit=10')).toEqual([])
    expect(await ids('cls__like=resource%&limit=10')).toEqual([sub])
  })

  it('the blueprint lists the class under the original\'s name, as a child of feature layers', async () => {
    const bp = await api.request('GET', '/api/component/resource/blueprint')
    expect(bp.body.resources.mapserver_style).toMatchObject({ identity: 'mapserver_style', interfaces: expect.arrayContaining(['IRenderableStyle']) })
    expect(bp.body.resources.mapserver_style.outpost_parent_classes).toContain('vector_layer')
    expect(bp.text).not.toMatch(SPEC_ONLY)
  })

  it('error bodies name classes and members as the original', async () => {
    const orphan = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'engine_style', parent: { id: 0 }, display_name: 'Orphan' }, engine_style: { xml: XML } } })
    expectError(expect, orphan, 422, 'nextgisweb.resource.exception.HierarchyError')
    expect(orphan.body.message).toContain('\'mapserver_style\'')
    const bad = await api.request('PUT', `/api/resource/${style}`, { body: { mapserver_style: { xml: '<map><layer><class></layer></map>' } } })
    expectError(expect, bad, 422, 'nextgisweb.core.exception.ValidationError')
    expect(bad.body.message).toContain('$.mapserver_style.xml')
    expect(bad.body.data.location).toEqual(['body', 'mapserver_style', 'xml'])
    expect(bad.text).not.toMatch(SPEC_ONLY)
    // Nothing changed.
    expect((await api.request('GET', `/api/resource/${style}`)).body.mapserver_style.xml).toBe(XML)
  })

  it('a vector tile names its layer ngw:<id>, as ngw-kit looks it up', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await api.request('GET', `/api/component/feature_layer/mvt?resource=${layer}&z=10&x=512&y=511`)
      expect(res.status).toBe(200)
      const t = decodeTile(bytesOf(res.bodyBase64))
      expect(Object.keys(t)).toEqual([`ngw:${layer}`])
      expect(t[`ngw:${layer}`]!.features.map((f) => f.properties)).toEqual([{ name: 'a' }])
    }
    const old = await api.request('GET', `/api/resource/${layer}/10/512/511.mvt`)
    expect(Object.keys(decodeTile(bytesOf(old.bodyBase64)))).toEqual([`ngw:${layer}`])
  })
})
