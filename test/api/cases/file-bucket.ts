/**
 * File buckets (spec §2.2, §4.2; reference §4.1): created from upload records, changed with the
 * complete file list, files downloadable by name, the whole bucket as a ZIP.
 */
import { unzipSync } from 'fflate'
import type { Api, ApiCase, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { newGroup, uploadFile } from './ingest.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const text = (b64: string) => new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)))

async function newBucket(api: Api, expect: Expect, parent: number, files: unknown[]) {
  return api.request('POST', '/api/resource/', { body: { resource: { cls: 'file_bucket', parent: { id: parent }, display_name: uniq('Bucket') },
    file_bucket: { files } } })
}

const listed = async (api: Api, id: number) => (await api.request('GET', `/api/resource/${id}`)).body.file_bucket.files

export const fileBucketCases: ApiCase[] = [
  {
    name: 'a bucket is created from upload records; its files download by name with their media type',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const a = await uploadFile(api, expect, 'notes.txt', 'field notes\n')
      const b = await uploadFile(api, expect, 'Отчёт 2024.csv', 'a,b\n1,2\n')
      const res = await newBucket(api, expect, parent, [a, b])
      expect(res.status).toBe(201)
      const body = (await api.request('GET', `/api/resource/${res.body.id}`)).body
      expect(body.resource.cls).toBe('file_bucket')
      expect(body.file_bucket.files).toEqual([
        { name: 'notes.txt', size: 12, mime_type: a.mime_type }, { name: 'Отчёт 2024.csv', size: 8, mime_type: b.mime_type }])
      expect(body.file_bucket.tstamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
      const dl = await api.request('GET', `/api/resource/${res.body.id}/file/notes.txt`)
      expect(dl.status).toBe(200)
      expect(dl.headers['content-type']).toBe(a.mime_type)
      expect(dl.headers['content-disposition']).toBe('attachment; filename="notes.txt"')
      expect(dl.text).toBe('field notes\n')
      const cyr = await api.request('GET', `/api/resource/${res.body.id}/file/${encodeURIComponent('Отчёт 2024.csv')}`)
      expect(cyr.text).toBe('a,b\n1,2\n')
      expect(cyr.headers['content-disposition']).toContain(`filename*=UTF-8''${encodeURIComponent('Отчёт 2024.csv')}`)
      expect((await api.request('GET', `/api/resource/${res.body.id}/file/none.txt`)).status).toBe(404)
      const routes = (await api.request('GET', '/api/component/pyramid/route', { auth: 'guest' })).body
      expect(routes['resource.file_download']).toEqual(['/api/resource/{0}/file/{1}', 'id', 'name'])
    },
  },
  {
    name: 'PUT with the complete list keeps the listed files, adds new ones and deletes the rest',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const a = await uploadFile(api, expect, 'a.txt', 'A')
      const b = await uploadFile(api, expect, 'b.txt', 'BB')
      const { body: { id } } = await newBucket(api, expect, parent, [a, b])
      const c = await uploadFile(api, expect, 'c.txt', 'CCC')
      const put = await api.request('PUT', `/api/resource/${id}`, { body: { file_bucket: { files: [
        { name: 'a.txt', size: 1, mime_type: 'text/plain' }, { ...c, name: 'renamed.txt' }] } } })
      expect(put.status).toBe(200)
      expect(put.body).toEqual({})
      expect((await listed(api, id)).map((f: { name: string; size: number }) => [f.name, f.size])).toEqual([['a.txt', 1], ['renamed.txt', 3]])
      expect((await api.request('GET', `/api/resource/${id}/file/b.txt`)).status).toBe(404)
      expect((await api.request('GET', `/api/resource/${id}/file/renamed.txt`)).text).toBe('CCC')
      expect((await api.request('GET', `/api/resource/${id}/file/a.txt`)).text).toBe('A')
      // A new upload under an existing name replaces that file.
      const a2 = await uploadFile(api, expect, 'a.txt', 'A2')
      await api.request('PUT', `/api/resource/${id}`, { body: { file_bucket: { files: [a2] } } })
      expect((await listed(api, id)).map((f: { name: string }) => f.name)).toEqual(['a.txt'])
      expect((await api.request('GET', `/api/resource/${id}/file/a.txt`)).text).toBe('A2')
    },
  },
  {
    name: 'the whole bucket downloads as a ZIP',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const big = 'x'.repeat(300_000) // more than one stored chunk
      const { body: { id } } = await newBucket(api, expect, parent, [
        await uploadFile(api, expect, 'one.txt', '1'), await uploadFile(api, expect, 'big.txt', big), await uploadFile(api, expect, 'empty.txt', '')])
      const res = await api.request('GET', `/api/resource/${id}/export`)
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/zip')
      expect(res.headers['content-disposition']).toBe(`attachment; filename=${id}.zip`)
      const files = unzipSync(Uint8Array.from(atob(res.bodyBase64!), (c) => c.charCodeAt(0)))
      expect(Object.keys(files)).toEqual(['one.txt', 'big.txt', 'empty.txt'])
      expect(new TextDecoder().decode(files['big.txt'])).toBe(big)
      expect(text(btoa(String.fromCharCode(...files['one.txt']!)))).toBe('1')
    },
  },
  {
    name: 'bad lists are 422s that change nothing: an unknown kept name, a name twice, a bad name, an unknown upload',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const a = await uploadFile(api, expect, 'a.txt', 'A')
      const { body: { id } } = await newBucket(api, expect, parent, [a])
      const put = (files: unknown[]) => api.request('PUT', `/api/resource/${id}`, { body: { file_bucket: { files } } })
      const unknown = await put([{ name: 'ghost.txt' }])
      expectError(expect, unknown, 422, VALIDATION)
      expect(unknown.body.message).toMatch(/no file 'ghost.txt'/)
      expectError(expect, await put([{ name: 'a.txt' }, { name: 'a.txt' }]), 422, VALIDATION)
      const b = await uploadFile(api, expect, 'b.txt', 'B')
      expectError(expect, await put([{ ...b, name: '../b.txt' }]), 422, VALIDATION)
      expectError(expect, await put([{ id: '0123456789abcdef0123456789abcdef', name: 'x.txt' }]), 422, 'nextgisweb.file_upload.model.FileUploadNotFound')
      expect(await listed(api, id)).toEqual([{ name: 'a.txt', size: 1, mime_type: a.mime_type }])
      expect((await api.request('GET', `/api/resource/${id}/file/a.txt`)).text).toBe('A')
      expect((await api.request('DELETE', `/api/resource/${id}`)).status).toBe(200)
      expect((await api.request('GET', `/api/resource/${id}/file/a.txt`)).status).toBe(404)
    },
  },
]
