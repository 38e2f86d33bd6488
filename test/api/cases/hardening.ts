/**
 * Input that used to crash the server, corrupt the tree or answer 500 (issue 7, section 1):
 * each case is a clear 4xx with the error body now, and changes nothing.
 */
import type { Api, ApiCase, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { createLayer } from './feature.ts'

const RES = 'nextgisweb.resource.exception'
const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const NOT_FOUND = 'nextgisweb.pyramid.exception.PyramidHTTPError'

export async function createGroup(api: Api, expect: Expect, parent = 0): Promise<number> {
  const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: parent }, display_name: uniq('Hardening') } } })
  expect(res.status).toBe(201)
  return res.body.id as number
}

/** The root exists, has no parent, and walking up from `ids` always reaches it. */
export async function expectTreeWhole(api: Api, expect: Expect, ids: number[] = []): Promise<void> {
  const root = await api.request('GET', '/api/resource/0')
  expect(root.status).toBe(200)
  expect(root.body.resource.parent).toBeNull()
  for (const id of ids) {
    let at = id
    for (let steps = 0; at !== 0; steps++) {
      expect(steps).toBeLessThan(100)
      const r = await api.request('GET', `/api/resource/${at}`)
      expect(r.status).toBe(200)
      at = r.body.resource.parent.id
    }
  }
}

const QUOTA = 'nextgisweb.file_upload.exception.UploadQuotaExceeded'

/** Anonymous uploads: allowed as in the original, within the host's quota of pending uploads. */
export const uploadQuotaCase: ApiCase = {
  name: 'anonymous uploads are accepted up to the host\'s quota of pending uploads, then 402; logged-in users are not held to it',
  async run(api, expect) {
    const max = (await api.request('GET', '/api/component/pyramid/settings?component=file_upload')).body.maxSize as number
    const tus = (auth: 'guest' | 'admin', length: number) => api.request('POST', '/api/component/file_upload/', { auth,
      headers: { 'tus-resumable': '1.0.0', 'upload-length': String(length) } })
    const small = await api.request('PUT', '/api/component/file_upload/', { auth: 'guest', raw: 'anonymous bytes' })
    expect(small.status).toBe(201)
    // TUS uploads reserve their declared length: two of the largest size fill the default 1 GiB.
    const reserved: string[] = []
    for (let i = 0; i < 2; i++) {
      const res = await tus('guest', max - 1000)
      expect(res.status).toBe(201)
      reserved.push(res.headers.location!.split('/').pop()!)
    }
    const refused = [await tus('guest', max - 1000), await api.request('PUT', '/api/component/file_upload/', { auth: 'guest', raw: 'x'.repeat(2000) }),
      await api.request('POST', '/api/component/file_upload/', { auth: 'guest', form: [{ name: 'file', filename: 'a.txt', base64: btoa('x'.repeat(2000)) }] })]
    for (const res of refused) {
      expectError(expect, res, 402, QUOTA)
      expect(res.body.data.quota).toBeGreaterThan(0)
    }
    const admin = await tus('admin', max)
    expect(admin.status).toBe(201)
    reserved.push(admin.headers.location!.split('/').pop()!)
    for (const id of reserved) expect((await api.request('DELETE', `/api/component/file_upload/${id}`, { auth: 'guest', headers: { 'tus-resumable': '1.0.0' } })).status).toBe(204)
    expect((await tus('guest', 1000)).status).toBe(201)
  },
}

export const hardeningCases: ApiCase[] = [
  {
    name: 'ids of 2^53 and beyond are 404s: they neither delete nor move the root',
    async run(api, expect) {
      const a = await createGroup(api, expect)
      const b = await createGroup(api, expect, a)
      for (const id of ['18446744073709551616', '18446744073709551617', '9007199254740993', '99999999999999999999999']) {
        expectError(expect, await api.request('GET', `/api/resource/${id}`), 404, NOT_FOUND)
        expectError(expect, await api.request('DELETE', `/api/resource/${id}`), 404, NOT_FOUND)
        expectError(expect, await api.request('PUT', `/api/resource/${id}`, { body: { resource: { parent: { id: b } } } }), 404, NOT_FOUND)
        expectError(expect, await api.request('GET', `/api/resource/${a}/feature/${id}`), 404, NOT_FOUND)
      }
      await expectTreeWhole(api, expect, [a, b])
      const kids = await api.request('GET', `/api/resource/?parent=${a}`)
      expect(kids.body.map((r: { resource: { id: number } }) => r.resource.id)).toEqual([b])
    },
  },
  {
    name: 'ids beyond 2^53 in bodies and query strings are 422s',
    async run(api, expect) {
      const a = await createGroup(api, expect)
      const moved = await api.request('PUT', `/api/resource/${a}`, { raw: '{"resource": {"parent": {"id": 18446744073709551616}}}' })
      expectError(expect, moved, 422, VALIDATION)
      expect(moved.body.message).toMatch(/out of range/)
      const created = await api.request('POST', '/api/resource/', { raw: '{"resource": {"cls": "resource_group", "parent": {"id": 1e300}, "display_name": "x"}}' })
      expectError(expect, created, 422, VALIDATION)
      expectError(expect, await api.request('GET', '/api/resource/?parent=18446744073709551616'), 422, VALIDATION)
      expectError(expect, await api.request('GET', '/api/resource/search/?id=18446744073709551616'), 422, VALIDATION)
      await expectTreeWhole(api, expect, [a])
    },
  },
  {
    name: 'the root cannot be moved under its own descendant, nor a resource into itself',
    async run(api, expect) {
      const a = await createGroup(api, expect)
      const b = await createGroup(api, expect, a)
      expectError(expect, await api.request('PUT', '/api/resource/0', { body: { resource: { parent: { id: b } } } }), 422, `${RES}.HierarchyError`)
      expectError(expect, await api.request('PUT', `/api/resource/${a}`, { body: { resource: { parent: { id: b } } } }), 422, `${RES}.HierarchyError`)
      expectError(expect, await api.request('PUT', `/api/resource/${a}`, { body: { resource: { parent: { id: a } } } }), 422, `${RES}.HierarchyError`)
      expectError(expect, await api.request('DELETE', '/api/resource/0'), 422, `${RES}.ResourceRootDeleteError`)
      await expectTreeWhole(api, expect, [a, b])
    },
  },
  {
    name: 'search without any filter lists every resource; a huge limit is a 422',
    async run(api, expect) {
      const a = await createGroup(api, expect)
      const all = await api.request('GET', '/api/resource/search/')
      expect(all.status).toBe(200)
      expect(all.body.map((r: { resource: { id: number } }) => r.resource.id)).toEqual(expect.arrayContaining([0, a]))
      const paged = await api.request('GET', '/api/resource/search/?limit=1')
      expect(paged.status).toBe(200)
      expect(paged.body.items.length).toBe(1)
      expect(paged.body.total_count).toBe(all.body.length)
      for (const limit of ['99999999999999999999', '1e400', '-1', 'abc']) {
        expectError(expect, await api.request('GET', `/api/resource/search/?limit=${limit}`), 422, VALIDATION)
      }
      expect((await api.request('GET', '/api/resource/search/?limit=9007199254740991')).status).toBe(200)
    },
  },
  {
    name: 'a malformed session cookie is ignored: the request is the guest\'s or the Basic user\'s',
    async run(api, expect) {
      for (const cookie of ['ngw_sid=%E0%A4%A', 'ngw_sid=%', 'ngw_sid=%00%ff; other=%zz']) {
        const guest = await api.request('GET', '/api/component/auth/current_user', { auth: 'guest', headers: { 'x-outpost-cookie': cookie, cookie } })
        expect(guest.status).toBe(200)
        expect(guest.body.keyname).toBe('guest')
        const admin = await api.request('GET', '/api/resource/0', { headers: { 'x-outpost-cookie': cookie, cookie } })
        expect(admin.status).toBe(200)
      }
    },
  },
  {
    name: 'JSON nested thousands deep is a 422 wherever it is, and changes nothing',
    async run(api, expect) {
      const a = await createGroup(api, expect)
      const deep = '['.repeat(10_000) + ']'.repeat(10_000)
      const perms = await api.request('PUT', `/api/resource/${a}`, { raw: `{"resource": {"permissions": ${deep}}}` })
      expectError(expect, perms, 422, VALIDATION)
      expect(perms.body.message).toMatch(/nests deeper/)
      const meta = await api.request('PUT', `/api/resource/${a}`, { raw: `{"resmeta": {"items": {"k": ${deep}}}}` })
      expectError(expect, meta, 422, VALIDATION)
      const got = await api.request('GET', `/api/resource/${a}`)
      expect(got.body.resource.permissions).toEqual([])
      expect(got.body.resmeta.items).toEqual({})
    },
  },
  {
    name: 'writes are judged before their body is read: a guest gets 403 whatever the body, a big login body 413',
    async run(api, expect) {
      const group = await createGroup(api, expect)
      const layer = await createLayer(api, expect)
      const fid = (await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 2)' } })).body.id
      // A malformed body used to be read (400) before the permission was looked at.
      const writes: Array<[string, string]> = [
        ['POST', '/api/resource/'], ['PUT', `/api/resource/${group}`], ['DELETE', `/api/resource/${group}`],
        ['POST', `/api/resource/${layer}/feature/`], ['PATCH', `/api/resource/${layer}/feature/`],
        ['DELETE', `/api/resource/${layer}/feature/`], ['PUT', `/api/resource/${layer}/feature/${fid}`],
        ['POST', `/api/resource/${layer}/feature/${fid}/attachment/`], ['PUT', `/api/resource/${layer}/feature/${fid}/attachment/1`],
        ['POST', '/api/component/outpost/catalogue/import'], ['POST', '/api/component/outpost/gdal/inspect?name=x.tif'],
      ]
      for (const [method, path] of writes) {
        const res = await api.request(method, path, { auth: 'guest', raw: '{"not json' })
        expect([method, path, res.status]).toEqual([method, path, 403])
        expect(res.body.status_code).toBe(403)
      }
      expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}`)).status).toBe(200)
      const big = await api.request('POST', '/api/component/auth/login', { auth: 'guest',
        body: { login: 'x'.repeat(70_000), password: 'y' } })
      expectError(expect, big, 413, NOT_FOUND)
      expect(big.body.data.limit).toBe(65536)
      const form = await api.request('POST', '/api/component/auth/login', { auth: 'guest',
        raw: `login=${'x'.repeat(70_000)}&password=y`, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      expectError(expect, form, 413, NOT_FOUND)
    },
  },
  uploadQuotaCase,
]
