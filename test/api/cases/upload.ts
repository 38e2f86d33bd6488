import type { Api, ApiCase, ApiResponse, Expect } from '../harness.ts'
import { base64, expectError } from '../harness.ts'

const C = '/api/component/file_upload/'
const FU = 'nextgisweb.file_upload'
const HTTP_ERROR = 'nextgisweb.pyramid.exception.PyramidHTTPError'
const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const ID = /^[0-9a-f]{32}$/
const TUS = { 'tus-resumable': '1.0.0' }
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])

/** Starts a TUS upload and returns its item path (taken, as clients do, from Location). */
async function tusStart(api: Api, expect: Expect, length: number, metadata?: string): Promise<{ path: string; id: string }> {
  const headers: Record<string, string> = { ...TUS, 'upload-length': String(length) }
  if (metadata !== undefined) headers['upload-metadata'] = metadata
  const res = await api.request('POST', C, { headers })
  expect(res.status).toBe(201)
  const location = res.headers.location!
  const url = new URL(location)
  const id = url.pathname.split('/').pop()!
  return { path: url.pathname, id }
}

function patch(api: Api, path: string, offset: number, data: string, type = 'application/offset+octet-stream'): Promise<ApiResponse> {
  return api.request('PATCH', path, { bytesBase64: base64(data),
    headers: { ...TUS, 'content-type': type, 'upload-offset': String(offset) } })
}

async function maxSize(api: Api): Promise<number> {
  return (await api.request('GET', '/api/component/pyramid/settings?component=file_upload')).body.maxSize
}

export const uploadCases: ApiCase[] = [
  {
    name: 'upload routes are in the route table under the original names',
    async run(api, expect) {
      const res = await api.request('GET', '/api/component/pyramid/route', { auth: 'guest' })
      expect(res.body['file_upload.collection']).toEqual([C])
      expect(res.body['file_upload.item']).toEqual([C + '{0}', 'id'])
      expect(res.body['file_upload.upload']).toEqual([C + 'upload'])
    },
  },
  {
    name: 'OPTIONS advertises TUS 1.0.0 with creation, termination and the size limit',
    async run(api, expect) {
      const res = await api.request('OPTIONS', C, { auth: 'guest' })
      expect(res.status).toBe(204)
      expect(res.text).toBe('')
      expect(res.headers['tus-resumable']).toBe('1.0.0')
      expect(res.headers['tus-version']).toBe('1.0.0')
      expect(res.headers['tus-extension']).toBe('creation,termination')
      expect(res.headers['tus-max-size']).toBe(String(await maxSize(api)))
    },
  },
  {
    name: 'multipart `file` answers upload_meta with one record that GET returns again',
    async run(api, expect) {
      // The path is stripped. (Chromium's own multipart parser unescapes backslashes in a quoted
      // filename, so Windows paths are covered by the unit tests.)
      const res = await api.request('POST', C, { form: [{ name: 'file', filename: 'data/points.csv', type: 'text/csv', base64: base64('a,b\n1,2\n') }] })
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/json')
      expect(res.body.upload_meta).toHaveLength(1)
      const rec = res.body.upload_meta[0]
      expect(Object.keys(rec)).toEqual(['id', 'size', 'name', 'mime_type'])
      expect(rec).toEqual({ id: expect.stringMatching(ID), size: 8, name: 'points.csv', mime_type: 'text/csv' })
      const got = await api.request('GET', C + rec.id, { auth: 'guest' })
      expect(got.status).toBe(200)
      expect(got.body).toEqual(rec)
      // A `name` field names the file (spec 4.10).
      const named = await api.request('POST', C, { form: [{ name: 'file', filename: 'x.bin', type: 'text/plain', base64: base64('hi') },
        { name: 'name', value: 'roads.txt' }] })
      expect(named.body.upload_meta[0]).toMatchObject({ size: 2, name: 'roads.txt' })
    },
  },
  {
    name: 'multipart `files[]` answers one record per file, in order, an empty file included',
    async run(api, expect) {
      const res = await api.request('POST', C, { form: [
        { name: 'files[]', filename: 'zero.txt', type: 'text/plain', base64: '' },
        { name: 'files[]', filename: 'dir/foo.ext', type: 'application/x-foo', base64: base64('content-1') },
        { name: 'files[]', filename: 'bar.ext', type: 'application/x-bar', base64: base64('content-22') },
      ] })
      expect(res.status).toBe(200)
      expect(res.body.upload_meta.map((r: { name: string; size: number }) => [r.name, r.size]))
        .toEqual([['zero.txt', 0], ['foo.ext', 9], ['bar.ext', 10]])
      const ids = new Set(res.body.upload_meta.map((r: { id: string }) => r.id))
      expect(ids.size).toBe(3)
      for (const r of res.body.upload_meta) expect((await api.request('GET', C + r.id)).body).toEqual(r)
    },
  },
  {
    name: 'raw PUT answers 201 with the record itself; name from Content-Disposition, type sent or sniffed',
    async run(api, expect) {
      const res = await api.request('PUT', C, { raw: 'just text',
        headers: { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="notes/readme.txt"' } })
      expect(res.status).toBe(201)
      expect(res.headers['content-type']).toBe('application/json')
      expect(res.body).toEqual({ id: expect.stringMatching(ID), size: 9, name: 'readme.txt', mime_type: 'text/plain' })
      const png = await api.request('PUT', C, { bytesBase64: base64(PNG) })
      expect(png.status).toBe(201)
      expect(png.body).toEqual({ id: expect.stringMatching(ID), size: PNG.length, mime_type: 'image/png' })
      // Nothing to sniff in an empty body: no mime_type, as the original.
      const empty = await api.request('PUT', C, { bytesBase64: '' })
      expect(empty.status).toBe(201)
      expect(empty.body).toEqual({ id: expect.stringMatching(ID), size: 0 })
      expect((await api.request('GET', C + png.body.id)).body).toEqual(png.body)
    },
  },
  {
    name: 'the legacy path takes multipart POST, raw PUT and raw POST; anyone may upload',
    async run(api, expect) {
      const form = await api.request('POST', C + 'upload', { auth: 'guest',
        form: [{ name: 'file', filename: 'a.txt', type: 'text/plain', base64: base64('abc') }] })
      expect(form.status).toBe(200)
      expect(form.body.upload_meta[0]).toMatchObject({ size: 3, name: 'a.txt', mime_type: 'text/plain' })
      const put = await api.request('PUT', C + 'upload', { bytesBase64: base64(PNG), headers: { 'content-type': 'image/png' } })
      expect(put.status).toBe(201)
      expect(put.body).toMatchObject({ size: PNG.length, mime_type: 'image/png' })
      const post = await api.request('POST', C + 'upload', { bytesBase64: base64(PNG) })
      expect(post.status).toBe(201)
      expect(post.body).toEqual({ id: expect.stringMatching(ID), size: PNG.length, mime_type: 'image/png' })
      expectError(expect, await api.request('GET', C + 'upload'), 404, HTTP_ERROR)
    },
  },
  {
    name: 'TUS: create, HEAD, PATCH in chunks, a wrong offset is 409, then GET gives the record and DELETE ends it',
    async run(api, expect) {
      const meta = `name ${base64('field/survey.geojson')},mime_type ${base64('application/geo+json')}`
      const created = await api.request('POST', C, { headers: { ...TUS, 'upload-length': '11', 'upload-metadata': meta } })
      expect(created.status).toBe(201)
      expect(created.text).toBe('')
      expect(created.headers['tus-resumable']).toBe('1.0.0')
      const location = created.headers.location!
      expect(location).toMatch(/^https?:\/\/[^/]+\/api\/component\/file_upload\/[0-9a-f]{32}$/)
      const path = new URL(location).pathname
      const id = path.split('/').pop()!

      const head0 = await api.request('HEAD', path, { headers: TUS })
      expect(head0.status).toBe(200)
      expect(head0.headers['upload-offset']).toBe('0')
      expect(head0.headers['upload-length']).toBe('11')
      expect(head0.headers['cache-control']).toBe('no-store')
      expect(head0.headers['tus-resumable']).toBe('1.0.0')

      const p1 = await patch(api, path, 0, 'hello ')
      expect(p1.status).toBe(204)
      expect(p1.text).toBe('')
      expect(p1.headers['upload-offset']).toBe('6')
      expect(p1.headers['tus-resumable']).toBe('1.0.0')
      const conflict = await patch(api, path, 0, 'hello ')
      expectError(expect, conflict, 409, HTTP_ERROR)
      expectError(expect, await patch(api, path, 7, 'orld'), 409, HTTP_ERROR)
      expectError(expect, await api.request('GET', path), 422, `${FU}.model.FileUploadNotCompleted`)
      expect((await api.request('HEAD', path, { headers: TUS })).headers['upload-offset']).toBe('6')

      const p2 = await patch(api, path, 6, 'world')
      expect(p2.status).toBe(204)
      expect(p2.headers['upload-offset']).toBe('11')
      const got = await api.request('GET', path)
      expect(got.status).toBe(200)
      expect(Object.keys(got.body)).toEqual(['id', 'size', 'name', 'mime_type'])
      expect(got.body).toEqual({ id, size: 11, name: 'survey.geojson', mime_type: 'application/geo+json' })
      const head = await api.request('HEAD', path, { headers: TUS })
      expect([head.headers['upload-offset'], head.headers['upload-length']]).toEqual(['11', '11'])

      const del = await api.request('DELETE', path)
      expect(del.status).toBe(204)
      expect(del.text).toBe('')
      expectError(expect, await api.request('GET', path), 404, `${FU}.model.FileUploadNotFound`)
      expectError(expect, await api.request('DELETE', path), 404, `${FU}.model.FileUploadNotFound`)
    },
  },
  {
    name: 'TUS: without a type the completed upload is sniffed; a zero-length upload is complete at once',
    async run(api, expect) {
      const t = await tusStart(api, expect, 5, `name ${base64('a.txt')}`)
      expect((await patch(api, t.path, 0, 'plain')).status).toBe(204)
      expect((await api.request('GET', t.path)).body).toEqual({ id: t.id, size: 5, name: 'a.txt', mime_type: 'text/plain' })
      const z = await tusStart(api, expect, 0)
      expect((await api.request('GET', z.path)).body).toEqual({ id: z.id, size: 0, mime_type: 'application/octet-stream' })
      const head = await api.request('HEAD', z.path, { headers: TUS })
      expect([head.headers['upload-offset'], head.headers['upload-length']]).toEqual(['0', '0'])
    },
  },
  {
    name: 'TUS creation errors: wrong version 412, no Upload-Length 400, too large 413, bad metadata 400',
    async run(api, expect) {
      expectError(expect, await api.request('POST', C, { headers: { 'tus-resumable': '0.2.2', 'upload-length': '3' } }), 412, HTTP_ERROR)
      expectError(expect, await api.request('POST', C, { headers: TUS }), 400, HTTP_ERROR)
      // Deferred length is not an extension the original offers.
      expectError(expect, await api.request('POST', C, { headers: { ...TUS, 'upload-defer-length': '1' } }), 400, HTTP_ERROR)
      expectError(expect, await api.request('POST', C, { headers: { ...TUS, 'upload-length': '-1' } }), 400, HTTP_ERROR)
      const big = await api.request('POST', C, { headers: { ...TUS, 'upload-length': String((await maxSize(api)) + 1) } })
      expectError(expect, big, 413, `${FU}.api.UploadedFileTooLarge`)
      expect(big.body.title).toBe('Uploaded file too large')
      expectError(expect, await api.request('POST', C, { headers: { ...TUS, 'upload-length': '3', 'upload-metadata': 'name a b c' } }), 400, HTTP_ERROR)
      expectError(expect, await api.request('POST', C, { headers: { ...TUS, 'upload-length': '3', 'upload-metadata': 'name @@@' } }), 400, HTTP_ERROR)
    },
  },
  {
    name: 'TUS PATCH errors: wrong Content-Type 415, no Upload-Offset 400, past Upload-Length 413; HEAD needs Tus-Resumable',
    async run(api, expect) {
      const t = await tusStart(api, expect, 4)
      expectError(expect, await patch(api, t.path, 0, 'abcd', 'application/octet-stream'), 415, HTTP_ERROR)
      expectError(expect, await api.request('PATCH', t.path, { bytesBase64: base64('abcd'),
        headers: { ...TUS, 'content-type': 'application/offset+octet-stream' } }), 400, HTTP_ERROR)
      expectError(expect, await patch(api, t.path, 0, 'abcde'), 413, `${FU}.api.UploadedFileTooLarge`)
      // Nothing of the refused requests was kept.
      expect((await api.request('HEAD', t.path, { headers: TUS })).headers['upload-offset']).toBe('0')
      expect((await api.request('HEAD', t.path)).status).toBe(412)
      expect((await api.request('HEAD', t.path, { headers: { 'tus-resumable': '2.0.0' } })).status).toBe(412)
      expect((await patch(api, t.path, 0, 'abcd')).status).toBe(204)
      expectError(expect, await patch(api, t.path, 4, 'e'), 413, `${FU}.api.UploadedFileTooLarge`)
    },
  },
  {
    name: 'upload ids: the dashed UUID form is accepted, other forms are 404 Page not found, unknown ids 404',
    async run(api, expect) {
      const put = await api.request('PUT', C, { raw: 'x', headers: { 'content-type': 'text/plain' } })
      const id: string = put.body.id
      const dashed = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`
      const got = await api.request('GET', C + dashed)
      expect(got.status).toBe(200)
      expect(got.body.id).toBe(id)
      expect((await api.request('GET', C + dashed.toUpperCase())).body.id).toBe(id)
      for (const bad of [id.toUpperCase(), id.slice(1), id + '0', 'zz' + id.slice(2), '12345']) {
        const res = await api.request('GET', C + bad)
        expectError(expect, res, 404, HTTP_ERROR)
        expect(res.body.title).toBe('Page not found')
      }
      const unknown = await api.request('GET', C + '0'.repeat(32))
      expectError(expect, unknown, 404, `${FU}.model.FileUploadNotFound`)
      expect(unknown.body.title).toBe('Uploaded file not found')
      expectError(expect, await api.request('PATCH', C + '0'.repeat(32), { bytesBase64: '',
        headers: { ...TUS, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' } }), 404, `${FU}.model.FileUploadNotFound`)
      expect((await api.request('HEAD', C + '0'.repeat(32), { headers: TUS })).status).toBe(404)
      // The dashed form deletes too.
      expect((await api.request('DELETE', C + dashed)).status).toBe(204)
      expect((await api.request('GET', C + id)).status).toBe(404)
    },
  },
  {
    name: 'multipart errors: no file field 422, a text value 422, a malformed body 400',
    async run(api, expect) {
      const empty = await api.request('POST', C, { form: [{ name: 'name', value: 'nothing.txt' }] })
      expectError(expect, empty, 422, VALIDATION)
      const text = await api.request('POST', C, { form: [{ name: 'file', value: 'not a file' }] })
      expectError(expect, text, 422, VALIDATION)
      const broken = await api.request('POST', C, { raw: 'this is not multipart',
        headers: { 'content-type': 'multipart/form-data; boundary=----nothing' } })
      expectError(expect, broken, 400, HTTP_ERROR)
    },
  },
]
