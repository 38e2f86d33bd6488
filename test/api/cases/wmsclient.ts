/**
 * The WMS client (issue 26 item 2; reference ngw-services §3, §6.6): `wmsclient_connection`
 * with its stored capabilities (`capcache: "query"`/`"clear"`) and `wmsclient_layer` drawn
 * through render (tiles and images) from a small real WMS served by the test's process
 * (test/api/wms-remote.ts), in the layer's `remote_srs` with the axis order of each version;
 * remotes that answer an exception, an HTML page or too much; the images kept for offline use.
 * In the service worker the remote is another origin: the test WMS sends CORS headers, and one
 * that does not gets an error that says so. And the round trip: our own WMS server (a
 * `wmsserver_service` of the same host, reached at its own address; the worker answers it
 * in-process) as the remote, with the connection's user's permissions.
 */
import type { Api, ApiCase, ApiResponse, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { compareImages, decodePng, makeLayer, makeStyle, square } from '../render-helpers.ts'
import { colourAt, WMS_SECRET, wmsRemote, type WmsMode } from '../wms-remote.ts'
import { createUser, rule, setRules } from './permissions.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const EXTERNAL = 'nextgisweb.core.exception.ExternalServiceError'
const DENIED = 'nextgisweb.core.exception.InsufficientPermissions'

const CAPCACHE = {
  formats: ['image/png', 'image/jpeg'],
  // Leaf layers only; "Rivers" has no name and takes its parent's (§3.2).
  layers: [{ id: 'roads', title: 'Roads', bbox: [10, 20, 30, 40] }, { id: 'water', title: 'Rivers', bbox: [-10, -20, 0, 5] }],
  srs: ['EPSG:4326', 'EPSG:3857', 'EPSG:3395'],
  urls: { GetMap: 'http://internal.example/wms?', GetFeatureInfo: 'http://internal.example/wms?' },
}

const post = (api: Api, cls: string, member: unknown) => api.request('POST', '/api/resource/', { body: {
  resource: { cls, parent: { id: 0 }, display_name: uniq(cls) }, [cls]: member } })

async function connection(api: Api, expect: Expect, mode: WmsMode, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await post(api, 'wmsclient_connection', { url: (await wmsRemote()).url(mode), version: '1.1.1', ...extra })
  expect(res.status, res.text).toBe(201)
  return res.body.id as number
}

async function layer(api: Api, expect: Expect, conn: number, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await post(api, 'wmsclient_layer', { connection: { id: conn }, wmslayers: 'roads,water', imgformat: 'image/png', srs: { id: 3857 }, ...extra })
  expect(res.status, res.text).toBe(201)
  return res.body.id as number
}

const tile = (api: Api, id: number, z: number, x: number, y: number, extra = '') =>
  api.request('GET', `/api/component/render/tile?resource=${id}&z=${z}&x=${x}&y=${y}${extra}`)

/** The RGBA of the centre pixel of an image answer. */
function centre(expect: Expect, res: ApiResponse): number[] {
  expect(res.status, res.text).toBe(200)
  expect(res.headers['content-type']).toBe('image/png')
  const img = decodePng(res)
  const i = (Math.floor(img.height / 2) * img.width + Math.floor(img.width / 2)) * 4
  return [...img.data.slice(i, i + 4)]
}

const member = async (api: Api, id: number) => (await api.request('GET', `/api/resource/${id}`)).body.wmsclient_connection

/** A 502 ExternalServiceError titled `title`. */
function expect502(expect: Expect, res: ApiResponse, title: string): void {
  expectError(expect, res, 502, EXTERNAL)
  expect(res.body.title, res.text).toBe(title)
}

export const wmsclientCases: ApiCase[] = [
  {
    name: 'wmsclient_connection: capcache "query" stores the leaf layers, formats, systems and URLs of 1.1.1 and 1.3.0; "clear" drops them; the password is returned as the original does',
    async run(api, expect) {
      const remote = await wmsRemote()
      const res = await post(api, 'wmsclient_connection', { url: remote.url('ok'), version: '1.1.1', username: 'u', password: 'p', capcache: 'query' })
      expect(res.status, res.text).toBe(201)
      const id = res.body.id as number
      expect(await member(api, id)).toEqual({ url: remote.url('ok'), version: '1.1.1', username: 'u', password: 'p', insecure: false,
        referer: null, capcache: CAPCACHE })
      // 1.3.0: namespaced, EX_GeographicBoundingBox and CRS elements read the same.
      expect((await api.request('PUT', `/api/resource/${id}`, { body: { wmsclient_connection: { version: '1.3.0', capcache: 'query' } } })).status).toBe(200)
      expect(await member(api, id)).toMatchObject({ version: '1.3.0', capcache: CAPCACHE })
      expect((await api.request('PUT', `/api/resource/${id}`, { body: { wmsclient_connection: { capcache: 'clear' } } })).status).toBe(200)
      expect((await member(api, id)).capcache).toBeNull()
      // Bad input: 422 and nothing changed.
      const before = await member(api, id)
      for (const bad of [{ capcache: 'flush' }, { version: '2.0.0' }, { url: 'ftp://example.org/wms' }, { url: 'https://u:p@example.org/' }, { timeout: 5 }]) {
        expectError(expect, await api.request('PUT', `/api/resource/${id}`, { body: { wmsclient_connection: bad } }), 422, VALIDATION)
      }
      expect(await member(api, id)).toEqual(before)
      expectError(expect, await post(api, 'wmsclient_connection', { version: '1.1.1' }), 422, VALIDATION)
    },
  },
  {
    name: 'wmsclient_connection: a login is sent as HTTP Basic; a refused one, an exception, an HTML page or a huge answer is a 502 saying so, and nothing is stored',
    async run(api, expect) {
      const remote = await wmsRemote()
      const conn = await connection(api, expect, 'auth', { username: 'wms', password: 'secret', capcache: 'query' })
      expect((await member(api, conn)).capcache.layers).toHaveLength(2)
      const names = async () => ((await api.request('GET', '/api/resource/?parent=0')).body as { resource: { display_name: string } }[]).length
      const count = await names()
      const refused = await post(api, 'wmsclient_connection', { url: remote.url('auth'), username: 'wms', password: 'wrong', capcache: 'query' })
      expect502(expect, refused, 'Remote server error')
      expect(refused.body.data.remote_status).toBe(401)
      const exception = await post(api, 'wmsclient_connection', { url: remote.url('exception'), capcache: 'query' })
      expect502(expect, exception, 'WMS exception')
      expect(exception.body.data.code).toBe('LayerNotDefined')
      expect(exception.body.message).toContain("Layer 'nope' is not defined")
      expect(exception.body.message).not.toMatch(/[\u0000-\u001f]/)
      const html = await post(api, 'wmsclient_connection', { url: remote.url('html'), capcache: 'query' })
      expect502(expect, html, 'Remote answer malformed')
      expect(html.body.message).toContain('an HTML page')
      expect(html.text).not.toContain(WMS_SECRET)
      const huge = await post(api, 'wmsclient_connection', { url: remote.url('huge'), capcache: 'query' })
      expect502(expect, huge, 'Remote answer too large')
      expect(await names()).toBe(count)
      // A change that fails keeps what was stored.
      const before = await member(api, conn)
      expect502(expect, await api.request('PUT', `/api/resource/${conn}`, { body: { wmsclient_connection: { url: remote.url('html'), capcache: 'query' } } }), 'Remote answer malformed')
      expect(await member(api, conn)).toEqual(before)
      // From the browser, a WMS that sends no CORS headers cannot be read: the error names the origin to allow.
      const nocors = await post(api, 'wmsclient_connection', { url: remote.url('nocors'), capcache: 'query' })
      if (api.host === 'service-worker') {
        expect502(expect, nocors, 'Remote server unreachable')
        expect(nocors.body.message).toContain('CORS')
        expect(nocors.body.data.app_origin).toMatch(/^http:\/\/(localhost|127\.0\.0\.1):\d+$/)
      } else {
        expect(nocors.status, nocors.text).toBe(201)
      }
    },
  },
  {
    name: 'wmsclient_layer: remote_srs defaults to srs; tiles and images are the remote\'s GetMap with vendor_params; its extent is its layers\' boxes; bad members are 422s',
    async run(api, expect) {
      const remote = await wmsRemote()
      const conn = await connection(api, expect, 'ok', { capcache: 'query' })
      const id = await layer(api, expect, conn, { vendor_params: { transparent: 'false', DPI: '96', SRS: 'EPSG:1' } })
      expect((await api.request('GET', `/api/resource/${id}`)).body.wmsclient_layer).toEqual({ connection: { id: conn }, wmslayers: 'roads,water',
        imgformat: 'image/png', vendor_params: { transparent: 'false', DPI: '96', SRS: 'EPSG:1' }, srs: { id: 3857 }, remote_srs: { id: 3857 } })
      // North-west quarter of the world: west and north, red; south-east: green.
      expect(centre(expect, await tile(api, id, 1, 0, 0))).toEqual([...colourAt(-1, 1), 255])
      expect(centre(expect, await tile(api, id, 1, 1, 1))).toEqual([...colourAt(1, -1), 255])
      const q = remote.maps.at(-1)!
      expect(Object.fromEntries(q)).toMatchObject({ map: 'test', service: 'WMS', request: 'GetMap', version: '1.1.1', layers: 'roads,water',
        styles: '', format: 'image/png', width: '256', height: '256', transparent: 'false', dpi: '96', srs: 'EPSG:3857' })
      expect(q.get('bbox')!.split(',').map(Number)).toEqual([0, -20037508.342789244, 20037508.342789244, 0])
      const image = await api.request('GET', `/api/component/render/image?resource=${id}&extent=-20,10,-10,20&size=64,32&srs=4326`)
      expect(centre(expect, image)).toEqual([...colourAt(-1, 1), 255])
      expect((await api.request('GET', `/api/resource/${id}/extent`)).body.extent).toMatchObject({ minLon: -10, minLat: -20, maxLon: 30, maxLat: 40 })
      // It is its own style: a web map shows it.
      const map = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'webmap', parent: { id: 0 }, display_name: uniq('Map') },
        webmap: { root_item: { item_type: 'root', children: [{ item_type: 'layer', display_name: 'WMS', layer_style_id: id, layer_adapter: 'image' }] } } } })
      expect(map.status, map.text).toBe(201)
      const display = await api.request('GET', `/api/resource/${map.body.id}/webmap/display_config`)
      expect(display.text).toContain(`"styleId":${id}`)
      // A changed connection is asked again: no tile of the old address is served.
      expect((await api.request('PUT', `/api/resource/${conn}`, { body: { wmsclient_connection: { url: remote.url('exception') } } })).status).toBe(200)
      expect502(expect, await tile(api, id, 1, 0, 0), 'WMS exception')
      const bad = [{ connection: { id: 0 } }, { wmslayers: '' }, { srs: { id: 999999 } }, { remote_srs: { id: 1 } }, { vendor_params: { a: 1 } }, { vendor_params: { 'a b': 'c' } }]
      for (const m of bad) expectError(expect, await api.request('PUT', `/api/resource/${id}`, { body: { wmsclient_layer: m } }), 422, VALIDATION)
      expectError(expect, await post(api, 'wmsclient_layer', { connection: { id: conn }, imgformat: 'image/png', srs: { id: 3857 } }), 422, VALIDATION)
    },
  },
  {
    name: 'wmsclient_layer: another remote_srs is asked for and warped into the view; 1.3.0 sends CRS and a latitude-first box for EPSG:4326',
    async run(api, expect) {
      const remote = await wmsRemote()
      const conn = await connection(api, expect, 'ok', { version: '1.3.0' })
      const id = await layer(api, expect, conn, { remote_srs: { id: 4326 } })
      expect(centre(expect, await tile(api, id, 2, 0, 3))).toEqual([...colourAt(-1, -1), 255])
      const q = remote.maps.at(-1)!
      expect(q.get('crs')).toBe('EPSG:4326')
      expect(q.has('srs')).toBe(false)
      const [minLat, minLon, maxLat, maxLon] = q.get('bbox')!.split(',').map(Number) as [number, number, number, number]
      expect(minLon).toBeCloseTo(-180, 6)
      expect(maxLon).toBeCloseTo(-90, 6)
      expect(minLat).toBeCloseTo(-85.0511, 3)
      expect(maxLat).toBeCloseTo(-66.5132, 3)
      expect(centre(expect, await tile(api, id, 2, 3, 0))).toEqual([...colourAt(1, 1), 255])
    },
  },
  {
    name: 'wmsclient_layer: a remote exception, an HTML page or 400 MB in place of an image is a 502; a 204 draws nothing; reading needs connection.connect',
    async run(api, expect) {
      const conn = await connection(api, expect, 'ok')
      const nope = await layer(api, expect, conn, { wmslayers: 'nope' })
      const exception = await tile(api, nope, 0, 0, 0)
      expect502(expect, exception, 'WMS exception')
      expect(exception.body.data.code).toBe('LayerNotDefined')
      const html = await layer(api, expect, await connection(api, expect, 'html'))
      const page = await tile(api, html, 0, 0, 0)
      expect502(expect, page, 'Remote answer malformed')
      expect(page.text).not.toContain(WMS_SECRET)
      expect502(expect, await tile(api, await layer(api, expect, await connection(api, expect, 'huge')), 0, 0, 0), 'Remote answer too large')
      const empty = await layer(api, expect, conn, { wmslayers: 'empty' })
      expect((await tile(api, empty, 0, 0, 0, '&nd=204')).status).toBe(204)
      // A user who reads the layer but may not connect through its connection gets neither its images nor its capabilities.
      const u = await createUser(api, expect)
      const everyone = [rule(u.id, 'resource', 'read'), rule(u.id, 'data', 'read')]
      for (const r of [conn, nope]) expect((await api.request('PUT', `/api/resource/${r}`, { body: { resource: { permissions: everyone } } })).status).toBe(200)
      expectError(expect, await api.request('GET', `/api/component/render/tile?resource=${nope}&z=0&x=0&y=0`, { auth: u.auth }), 403, DENIED)
      expect((await api.request('GET', `/api/resource/${conn}`, { auth: u.auth })).body.wmsclient_connection).toEqual({})
    },
  },
  {
    name: 'wmsclient_layer: images fetched are kept, so with the remote unreachable a view seen before still draws; one never seen is a 502 that says nothing was kept',
    async run(api, expect) {
      const remote = await wmsRemote()
      const id = await layer(api, expect, await connection(api, expect, 'flaky'))
      const seen = centre(expect, await tile(api, id, 3, 1, 2))
      remote.down = true
      try {
        // `cache=false`: past the server's memory of rendered tiles, to the kept GetMap answer.
        expect(centre(expect, await tile(api, id, 3, 1, 2, '&cache=false'))).toEqual(seen)
        const unseen = await tile(api, id, 3, 6, 5, '&cache=false')
        expect502(expect, unseen, 'Remote server unreachable')
        expect(unseen.body.message).toContain('No image of this view was kept')
      } finally {
        remote.down = false
      }
      expect(centre(expect, await tile(api, id, 3, 6, 5, '&cache=false'))).toEqual([...colourAt(1, -1), 255])
    },
  },
  {
    name: 'wmsclient: our own WMS server as the remote: capabilities 1.3.0 stored, the layer drawn with the server\'s pixels under the connection user\'s permissions; a guest-only connection is refused; a service drawn from itself is a loop error',
    async run(api, expect) {
      expect(api.origin).toBeDefined()
      const vl = await makeLayer(api, expect, 'POLYGON', [{ keyname: 'name', datatype: 'STRING' }], [{ geom: square(0, 0, 1e6, 1e6), fields: { name: 'a' } }])
      const red = await makeStyle(api, expect, vl, '<map><layer><class><style><color red="255" green="0" blue="0"/></style></class></layer></map>')
      const service = async (layers: unknown[]) => {
        const res = await post(api, 'wmsserver_service', { layers })
        expect(res.status, res.text).toBe(201)
        return { id: res.body.id as number, url: `${api.origin}/api/resource/${res.body.id}/wms` }
      }
      const squares = await service([{ keyname: 'red', display_name: 'Red square', resource_id: red }])
      const u = await createUser(api, expect)
      const login = u.auth as { login: string; password: string }
      const user = { username: login.login, password: login.password }
      await setRules(api, expect, squares.id, [rule(u.id, 'resource', 'read'), rule(u.id, 'service', 'connect')])
      await setRules(api, expect, vl, [rule(u.id, 'resource', 'read'), rule(u.id, 'data', 'read')])
      // Without credentials the service asks for them (401): the connection is refused and not made. It
      // is created by the administrator's session: the session cookie does not go with the connection's requests.
      const session = { auth: 'guest', credentials: 'include' } as const
      const admin = { login: 'administrator', password: api.host === 'node' ? 'test-admin-password' : 'admin' }
      expect((await api.request('POST', '/api/component/auth/login', { ...session, body: admin })).status).toBe(200)
      const guest = await api.request('POST', '/api/resource/', { ...session, body: { resource: { cls: 'wmsclient_connection', parent: { id: 0 },
        display_name: uniq('Guest') }, wmsclient_connection: { url: squares.url, version: '1.3.0', capcache: 'query' } } })
      expect((await api.request('POST', '/api/component/auth/logout', session)).status).toBe(200)
      expect502(expect, guest, 'Remote server error')
      expect(guest.body.data.remote_status).toBe(401)
      expect(guest.body.message).toContain('the login or the permission was refused')
      const conn = await connection(api, expect, 'ok', { url: squares.url, version: '1.3.0', ...user, capcache: 'query' })
      const caps = (await member(api, conn)).capcache
      expect(caps.layers).toEqual([{ id: 'red', title: 'Red square', bbox: expect.any(Array) }])
      expect(caps.layers[0].bbox.map((n: number) => Number(n.toFixed(4)))).toEqual([0, 0, 8.9832, 8.9466])
      expect(caps.formats).toContain('image/png')
      expect(caps.srs).toEqual(expect.arrayContaining(['CRS:84', 'EPSG:4326', 'EPSG:3857']))
      // Tile z=2 x=2 y=1 spans 0…10,018,754 m east and north: the square fills its lower-left tenth.
      const id = await layer(api, expect, conn, { wmslayers: 'red' })
      const own = decodePng(await tile(api, red, 2, 2, 1))
      const through = await tile(api, id, 2, 2, 1)
      expect(through.status, through.text).toBe(200)
      expect(compareImages(decodePng(through), own, { channel: 2, share: 0 }).share).toBe(0)
      expect(own.data[(245 * 256 + 10) * 4]).toBe(255)
      // The connection's user, not the asker, is who the service sees: without data.read the map is refused.
      await setRules(api, expect, vl, [rule(u.id, 'resource', 'read')])
      const refused = await tile(api, id, 2, 2, 1, '&cache=false')
      expect502(expect, refused, 'WMS exception')
      expect(refused.body.message).toContain("Insufficient 'read' permission in scope 'data'")
      // A service whose layer is a WMS layer of that same service: a clear error, not requests without end.
      const loopConn = await connection(api, expect, 'ok', { ...user })
      const loop = await layer(api, expect, loopConn, { wmslayers: 'self' })
      const self = await service([{ keyname: 'self', display_name: 'Itself', resource_id: loop }])
      await setRules(api, expect, self.id, [rule(u.id, 'resource', 'read'), rule(u.id, 'service', 'connect')])
      for (const r of [loop, loopConn]) await setRules(api, expect, r, [rule(u.id, 'resource', 'read'), rule(u.id, 'data', 'read'), rule(u.id, 'connection', 'connect')])
      expect((await api.request('PUT', `/api/resource/${loopConn}`, { body: { wmsclient_connection: { url: self.url } } })).status).toBe(200)
      const looped = await tile(api, loop, 0, 0, 0)
      expect502(expect, looped, 'WMS request loop')
      expect(looped.body.message).toContain('from the WMS service it is a layer of')
    },
  },
]
