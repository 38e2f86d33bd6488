/**
 * Values that were stored silently changed or broke later reads (issue 7, section 1): field
 * values that do not fit their type, far-out coordinates, attachment types, catalogue URLs
 * and permission rules. Each is refused with a 422 naming it, or served safely.
 */
import type { Api, ApiCase, Expect } from '../harness.ts'
import { base64, expectError, uniq } from '../harness.ts'
import { createLayer } from './feature.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'

async function uploadFile(api: Api, expect: Expect, text: string, name: string, type: string) {
  const res = await api.request('POST', '/api/component/file_upload/', { form: [{ name: 'file', filename: name, type, base64: base64(text) }] })
  expect(res.status).toBe(200)
  return res.body.upload_meta[0] as { id: string; size: number; mime_type?: string }
}

/** A point layer with one feature; the collection path of its attachments. */
async function attachments(api: Api, expect: Expect): Promise<string> {
  const layer = await createLayer(api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }])
  const fid = (await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 2)' } })).body.id
  return `/api/resource/${layer}/feature/${fid}/attachment/`
}

export const hardeningValueCases: ApiCase[] = [
  {
    name: 'field values that do not fit the field type are 422s naming the field and the value; nothing is rounded',
    async run(api, expect) {
      const layer = await createLayer(api, expect, 'POINT', [{ keyname: 'n', datatype: 'INTEGER' }, { keyname: 'ok', datatype: 'BOOLEAN' },
        { keyname: 'big', datatype: 'BIGINT' }])
      const col = `/api/resource/${layer}/feature/`
      const refused: Array<[string, string, string]> = [
        ['n', '1.5', '1.5'], ['n', '"2.5"', '2.5'], ['n', '1e300', '1e+300'], ['ok', '-7', '-7'], ['ok', '2', '2'], ['ok', '"maybe"', 'maybe'],
        ['big', '9007199254740993', '9007199254740992'], ['big', '1.5', '1.5'],
      ]
      for (const [field, value, shown] of refused) {
        const res = await api.request('POST', col, { raw: `{"geom": "POINT(0 0)", "fields": {"${field}": ${value}}}` })
        expectError(expect, res, 422, VALIDATION)
        expect(res.body.message).toContain(`'${field}'`)
        expect(res.body.message).toContain(shown)
        expect(res.body.data.field).toBe(field)
      }
      // A batch with one such value stores nothing.
      const batch = await api.request('PATCH', col, { body: [{ geom: 'POINT(0 0)', fields: { n: 1 } }, { geom: 'POINT(0 0)', fields: { n: 1.5 } }] })
      expectError(expect, batch, 422, VALIDATION)
      expect((await api.request('GET', `/api/resource/${layer}/feature_count`)).body.total_count).toBe(0)
      // What fits is kept exactly: whole numbers, 0/1 booleans, BIGINT past 2^53 as a string.
      const ok = await api.request('POST', col, { body: { geom: 'POINT(0 0)', fields: { n: 3, ok: 0, big: '9007199254740993' } } })
      expect(ok.status).toBe(200)
      const got = await api.request('GET', `${col}${ok.body.id}?bigint_format=string`)
      expect(got.body.fields).toEqual({ n: 3, ok: false, big: '9007199254740993' })
    },
  },
  {
    name: 'coordinates beyond ±1e15 are 422s, and the layer\'s extent keeps answering',
    async run(api, expect) {
      for (const srs of [3857, 4326]) {
        const layer = await createLayer(api, expect, 'POINT', [], srs)
        const col = `/api/resource/${layer}/feature/`
        expect((await api.request('POST', col, { body: { geom: 'POINT(10 20)' } })).status).toBe(200)
        for (const body of [{ geom: 'POINT(1e308 -1e308)' }, { geom: 'POINT(1e16 0)' }, { geom: { type: 'Point', coordinates: [0, -1e300] } }]) {
          const res = await api.request('POST', col, { body })
          expectError(expect, res, 422, VALIDATION)
          expect(res.body.message).toMatch(/Geometry is not valid: (coordinate .* is beyond|non-finite)/)
        }
        expectError(expect, await api.request('PATCH', col, { body: [{ geom: 'POINT(1 1)' }, { geom: 'POINT(1e308 1)' }] }), 422, VALIDATION)
        const extent = await api.request('GET', `/api/resource/${layer}/extent`)
        expect(extent.status).toBe(200)
        for (const v of Object.values(extent.body.extent)) expect(Number.isFinite(v)).toBe(true)
        expect((await api.request('GET', `/api/resource/${layer}/feature_extent`)).status).toBe(200)
        expect((await api.request('GET', `/api/resource/${layer}/feature_count`)).body.total_count).toBe(1)
      }
    },
  },
  {
    name: 'an attachment type that is not a media type is a 422; a TUS upload\'s is dropped, so downloads keep working',
    async run(api, expect) {
      const col = await attachments(api, expect)
      const file_upload = await uploadFile(api, expect, 'hello', 'a.txt', 'text/plain')
      for (const mime_type of ['text/plain\r\nX-Evil: 1', 'text/plain\u0000', 'no-slash', '']) {
        expectError(expect, await api.request('POST', col, { body: { file_upload, mime_type, name: 'x' } }), 422, VALIDATION)
      }
      const aid = (await api.request('POST', col, { body: { file_upload } })).body.id
      expectError(expect, await api.request('PUT', col + aid, { body: { mime_type: 'image/png\u0007' } }), 422, VALIDATION)
      // TUS metadata can carry any bytes; the type is then sniffed from the file instead.
      const created = await api.request('POST', '/api/component/file_upload/', { headers: { 'tus-resumable': '1.0.0',
        'upload-length': '5', 'upload-metadata': `name ${base64('b.txt')},mime_type ${base64('text/plain\r\nX-Evil: 1')}` } })
      expect(created.status).toBe(201)
      const id = created.headers.location!.split('/').pop()!
      const patched = await api.request('PATCH', `/api/component/file_upload/${id}`, { raw: 'hello', headers: { 'tus-resumable': '1.0.0',
        'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } })
      expect(patched.status).toBe(204)
      const rec = (await api.request('GET', `/api/component/file_upload/${id}`)).body
      expect(rec.mime_type).toBe('text/plain')
      const viaTus = (await api.request('POST', col, { body: { file_upload: rec } })).body.id
      for (const a of [aid, viaTus]) {
        const dl = await api.request('GET', `${col}${a}/download`)
        expect(dl.status).toBe(200)
        expect(dl.text).toBe('hello')
      }
    },
  },
  {
    name: 'attachments are never sniffed; HTML, SVG and XML are downloads, not pages of this origin',
    async run(api, expect) {
      const col = await attachments(api, expect)
      const cases: Array<[string, string, boolean]> = [
        ['text/html', 'page.html', false], ['image/svg+xml', 'pic.svg', false], ['application/xml', 'doc.xml', false],
        ['text/xml; charset=utf-8', 'doc2.xml', false], ['application/octet-stream', 'blob.bin', false],
        ['text/plain', 'note.txt', true], ['image/png', 'pic.png', true],
      ]
      for (const [type, name, inline] of cases) {
        const file_upload = await uploadFile(api, expect, '<svg onload="alert(1)"/>', name, type)
        const aid = (await api.request('POST', col, { body: { file_upload } })).body.id
        const dl = await api.request('GET', `${col}${aid}/download`)
        expect(dl.status).toBe(200)
        expect(dl.headers['x-content-type-options']).toBe('nosniff')
        expect(dl.headers['content-security-policy']).toBe('sandbox')
        expect([type, dl.headers['content-disposition']!.startsWith('attachment;')]).toEqual([type, !inline])
        expect(dl.headers['content-disposition']).toContain(`filename*=utf-8''${name}`)
      }
    },
  },
  {
    name: 'a catalogue import with a javascript: (or data:, vbscript:) URL is refused and changes nothing',
    async run(api, expect) {
      const url = '/api/component/outpost/catalogue/import'
      const before = (await api.request('GET', '/api/v1/geoservices/?limit=1')).body.count
      const service = { id: 1, guid: '00000000-0000-4000-8000-000000000001', name: 'Only', type: 'tms', epsg: 3857,
        url: 'https://t.example/{z}/{x}/{y}.png', created_at: '2024-01-01T00:00:00Z', updated_at: null }
      const bad: Array<Record<string, unknown>> = [
        { url: 'javascript:alert(1)//{z}/{x}/{y}' }, { origin_url: ' JavaScript:alert(1)' }, { license_url: 'java\tscript:alert(1)' },
        { copyright_url: 'data:text/html,<script>alert(1)</script>' }, { terms_of_use_url: 'vbscript:msgbox(1)' },
        { source_url: '\u0001javascript:alert(1)' }, { type: 'wms', url: 'javascript:alert(1)' },
      ]
      for (const patch of bad) {
        const res = await api.request('POST', url, { body: { geoservices: [{ ...service, ...patch }] } })
        expectError(expect, res, 422, VALIDATION)
        expect(res.body.message).toMatch(/URL is not allowed/)
      }
      expect((await api.request('GET', '/api/v1/geoservices/?limit=1')).body.count).toBe(before)
      // Free text and http(s) links still pass.
      const ok = await api.request('POST', url, { body: { geoservices: [{ ...service, terms_of_use_url: 'For tracing in OSM only', license_url: 'https://x.example/l' }] } })
      expect(ok.status).toBe(200)
    },
  },
  {
    name: 'resource permission rules are stored and enforced (issue 21); a client putting back the resource it read changes nothing',
    async run(api, expect) {
      const rule = { action: 'deny', principal: { id: 1 }, identity: '', scope: 'resource', permission: 'read', propagate: true }
      const created = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 },
        display_name: uniq('Acl'), permissions: [rule] } } })
      expect(created.status).toBe(201)
      const read = (await api.request('GET', `/api/resource/${created.body.id}`)).body
      expect(read.resource.permissions).toEqual([rule])
      expect((await api.request('PUT', `/api/resource/${created.body.id}`, { body: { resource: read.resource } })).status).toBe(200)
      expect((await api.request('GET', `/api/resource/${created.body.id}`)).body).toEqual(read)
    },
  },
]
