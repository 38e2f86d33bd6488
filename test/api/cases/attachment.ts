import type { Api, ApiCase, Expect } from '../harness.ts'
import { base64, expectError } from '../harness.ts'
import { createLayer } from './feature.ts'
import { imageSize, jpegPixel, makeJpeg, makePng } from './attachment-images.ts'

const FA = 'nextgisweb.feature_attachment.exception.AttachmentNotFound'
const FEATURE_NOT_FOUND = 'nextgisweb.feature_layer.exception.FeatureNotFound'
const RES_NOT_FOUND = 'nextgisweb.resource.exception.ResourceNotFound'
const UPLOAD_NOT_FOUND = 'nextgisweb.file_upload.model.FileUploadNotFound'
const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const FORBIDDEN = 'nextgisweb.core.exception.InsufficientPermissions'
const MISSING_UPLOAD = { id: '0123456789abcdef0123456789abcdef', size: 1 }

/** Uploads `bytes` as a multipart file and returns the upload record. */
async function upload(api: Api, expect: Expect, bytes: Uint8Array | string, name = 'file.bin', type = 'application/octet-stream') {
  const res = await api.request('POST', '/api/component/file_upload/', { form: [{ name: 'file', filename: name, type, base64: base64(bytes) }] })
  expect(res.status).toBe(200)
  return res.body.upload_meta[0] as { id: string; size: number; name: string; mime_type: string }
}

/** Makes a point layer in EPSG:3857 with a STRING field `name` and returns its id. */
export type PointLayerMaker = (api: Api, expect: Expect) => Promise<number>

const vectorPoints: PointLayerMaker = (api, expect) => createLayer(api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }])

/** A point layer of `make` with one feature; returns the collection path of its attachments. */
async function setupOn(make: PointLayerMaker, api: Api, expect: Expect) {
  const layer = await make(api, expect)
  const res = await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 2)', fields: { name: 'a' } } })
  expect(res.status).toBe(200)
  const fid = res.body.id as number
  return { layer, fid, feature: `/api/resource/${layer}/feature/${fid}`, col: `/api/resource/${layer}/feature/${fid}/attachment/` }
}

async function attach(api: Api, expect: Expect, col: string, bytes: Uint8Array | string, name: string, type: string, extra: object = {}) {
  const file_upload = await upload(api, expect, bytes, name, type)
  const res = await api.request('POST', col, { body: { file_upload, ...extra } })
  expect(res.status).toBe(200)
  expect(res.body).toEqual({ id: expect.any(Number) })
  return res.body.id as number
}

const list = async (api: Api, col: string) => (await api.request('GET', col)).body

const PHOTO_EXIF = { orientation: 6, dateTimeOriginal: '2024:05:01 10:00:00' }

/**
 * The attachment cases on the layers `make` makes: vector layers here, a PostGIS layer's in
 * test/api/spatialdb.test.ts (its attachments are kept by us, as the original keeps them).
 */
export function attachmentCasesOn(make: PointLayerMaker): ApiCase[] {
  const setup = (api: Api, expect: Expect) => setupOn(make, api, expect)
  return [
    {
      name: 'attachment routes are in the route table under the original names',
      async run(api, expect) {
        const res = await api.request('GET', '/api/component/pyramid/route')
        const col = '/api/resource/{0}/feature/{1}/attachment/'
        expect(res.body['feature_attachment.collection']).toEqual([col, 'id', 'fid'])
        expect(res.body['feature_attachment.item']).toEqual([col + '{2}', 'id', 'fid', 'aid'])
        expect(res.body['feature_attachment.download']).toEqual([col + '{2}/download', 'id', 'fid', 'aid'])
        expect(res.body['feature_attachment.image']).toEqual([col + '{2}/image', 'id', 'fid', 'aid'])
      },
    },
    {
      name: 'POST creates an attachment from an upload; GET item, collection and the feature show it',
      async run(api, expect) {
        const { col, feature } = await setup(api, expect)
        expect(await list(api, col)).toEqual([])
        const photo = makeJpeg(32, 16, PHOTO_EXIF)
        const file_upload = await upload(api, expect, photo, 'photo.jpg', 'image/jpeg')
        // The upload's name and type win over the body's.
        const res = await api.request('POST', col, { body: { file_upload, name: 'ignored.png', mime_type: 'image/png', keyname: 'main', description: 'Front' } })
        expect(res.status).toBe(200)
        expect(res.headers['content-type']).toBe('application/json')
        const aid = res.body.id
        const item = await api.request('GET', col + aid)
        expect(item.status).toBe(200)
        expect(Object.keys(item.body)).toEqual(['id', 'name', 'keyname', 'size', 'mime_type', 'description', 'is_image', 'file_meta'])
        expect(item.body).toEqual({ id: aid, name: 'photo.jpg', keyname: 'main', size: photo.length, mime_type: 'image/jpeg',
          description: 'Front', is_image: true, file_meta: { timestamp: '2024-05-01T10:00:00' } })
        expect(await list(api, col)).toEqual([item.body])
        const f = await api.request('GET', feature)
        expect(f.body.extensions.attachment).toEqual([item.body])
        // A text file: not an image, no EXIF, type from the upload.
        const txt = await attach(api, expect, col, 'hello', 'notes.txt', 'text/plain')
        expect((await api.request('GET', col + txt)).body).toEqual({ id: txt, name: 'notes.txt', keyname: null, size: 5,
          mime_type: 'text/plain', description: null, is_image: false, file_meta: {} })
        expect((await list(api, col)).map((a: { id: number }) => a.id)).toEqual([aid, txt])
      },
    },
    {
      name: 'the collection of a feature without attachments, or of a missing feature, is []',
      async run(api, expect) {
        const { layer } = await setup(api, expect)
        const res = await api.request('GET', `/api/resource/${layer}/feature/987654/attachment/`)
        expect(res.status).toBe(200)
        expect(res.body).toEqual([])
        expectError(expect, await api.request('GET', '/api/resource/987654/feature/1/attachment/'), 404, RES_NOT_FOUND)
        // The collection needs its trailing slash.
        expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/1/attachment`), 404, 'nextgisweb.pyramid.exception.PyramidHTTPError')
      },
    },
    {
      name: 'POST errors: guest 403, missing feature 404, unknown upload 422, bad body 422/400; nothing is stored',
      async run(api, expect) {
        const { layer, col } = await setup(api, expect)
        const file_upload = await upload(api, expect, 'x', 'x.txt', 'text/plain')
        expectError(expect, await api.request('POST', col, { body: { file_upload }, auth: 'guest' }), 403, FORBIDDEN)
        const missing = await api.request('POST', `/api/resource/${layer}/feature/987654/attachment/`, { body: { file_upload } })
        expectError(expect, missing, 404, FEATURE_NOT_FOUND)
        expect(missing.body.data).toEqual({ resource_id: layer, feature_id: 987654 })
        expectError(expect, await api.request('POST', col, { body: { file_upload: MISSING_UPLOAD } }), 422, UPLOAD_NOT_FOUND)
        const noUpload = await api.request('POST', col, { body: { name: 'a' } })
        expectError(expect, noUpload, 422, VALIDATION)
        expect(noUpload.body.message).toContain('$.file_upload')
        expectError(expect, await api.request('POST', col, { body: { file_upload, name: 5 } }), 422, VALIDATION)
        expectError(expect, await api.request('POST', col, { body: { file_upload, mime_type: null } }), 422, VALIDATION)
        expectError(expect, await api.request('POST', col, { body: [file_upload] }), 422, VALIDATION)
        expectError(expect, await api.request('POST', col, { raw: '{"file_upload": ' }), 400, 'nextgisweb.pyramid.tomb.exception.MalformedJSONBody')
        expectError(expect, await api.request('POST', '/api/resource/987654/feature/1/attachment/', { body: { file_upload } }), 404, RES_NOT_FOUND)
        expect(await list(api, col)).toEqual([])
      },
    },
    {
      name: 'keynames are unique within a feature (422, nothing stored)',
      async run(api, expect) {
        const { col } = await setup(api, expect)
        const a = await attach(api, expect, col, 'a', 'a.txt', 'text/plain', { keyname: 'k' })
        const file_upload = await upload(api, expect, 'b', 'b.txt', 'text/plain')
        expectError(expect, await api.request('POST', col, { body: { file_upload, keyname: 'k' } }), 422, VALIDATION)
        const b = await attach(api, expect, col, 'b', 'b.txt', 'text/plain', { keyname: 'other' })
        expectError(expect, await api.request('PUT', col + b, { body: { keyname: 'k' } }), 422, VALIDATION)
        expect((await list(api, col)).map((x: { id: number; keyname: string }) => [x.id, x.keyname])).toEqual([[a, 'k'], [b, 'other']])
      },
    },
    {
      name: 'PUT changes name, keyname, mime_type and description, or replaces the file; errors 403/404/422',
      async run(api, expect) {
        const { layer, fid, col } = await setup(api, expect)
        const aid = await attach(api, expect, col, 'hello', 'notes.txt', 'text/plain')
        const res = await api.request('PUT', col + aid, { body: { name: 'renamed.txt', keyname: 'k1', description: 'D', mime_type: 'text/csv' } })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ id: aid })
        expect((await api.request('GET', col + aid)).body).toMatchObject({ name: 'renamed.txt', keyname: 'k1', description: 'D', mime_type: 'text/csv', size: 5 })
        // Only what is sent changes.
        await api.request('PUT', col + aid, { body: { description: null } })
        expect((await api.request('GET', col + aid)).body).toMatchObject({ name: 'renamed.txt', keyname: 'k1', description: null })
        // A new file: bytes, size, name, type and EXIF timestamp follow it.
        const photo = makeJpeg(8, 8, { dateTimeOriginal: '2023:12:31 23:59:58' })
        const file_upload = await upload(api, expect, photo, 'new.jpg', 'image/jpeg')
        expect((await api.request('PUT', col + aid, { body: { file_upload } })).body).toEqual({ id: aid })
        expect((await api.request('GET', col + aid)).body).toEqual({ id: aid, name: 'new.jpg', keyname: 'k1', size: photo.length,
          mime_type: 'image/jpeg', description: null, is_image: true, file_meta: { timestamp: '2023-12-31T23:59:58' } })
        const dl = await api.request('GET', `${col}${aid}/download`)
        expect(dl.bodyBase64).toBe(base64(photo))
        // Changing attributes keeps the EXIF timestamp.
        await api.request('PUT', col + aid, { body: { name: 'kept.jpg' } })
        expect((await api.request('GET', col + aid)).body.file_meta).toEqual({ timestamp: '2023-12-31T23:59:58' })
        expectError(expect, await api.request('PUT', col + aid, { body: { name: 'x' }, auth: 'guest' }), 403, FORBIDDEN)
        const nf = await api.request('PUT', col + 987654, { body: { name: 'x' } })
        expectError(expect, nf, 404, FA)
        expect(nf.body.data).toEqual({ resource_id: layer, feature_id: fid, attachment_id: 987654 })
        expectError(expect, await api.request('PUT', col + aid, { body: { file_upload: MISSING_UPLOAD, name: 'lost' } }), 422, UPLOAD_NOT_FOUND)
        expectError(expect, await api.request('PUT', col + aid, { body: { keyname: 7 } }), 422, VALIDATION)
        // An attachment is found only under its own feature.
        expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/987654/attachment/${aid}`), 404, FA)
        expect((await api.request('GET', col + aid)).body).toMatchObject({ name: 'kept.jpg', keyname: 'k1', size: photo.length })
      },
    },
    {
      name: 'DELETE answers null, after which the attachment is gone; errors 403/404',
      async run(api, expect) {
        const { col } = await setup(api, expect)
        const aid = await attach(api, expect, col, 'bye', 'bye.txt', 'text/plain')
        expectError(expect, await api.request('DELETE', col + aid, { auth: 'guest' }), 403, FORBIDDEN)
        const res = await api.request('DELETE', col + aid)
        expect(res.status).toBe(200)
        expect(res.headers['content-type']).toBe('application/json')
        expect(res.text).toBe('null')
        expectError(expect, await api.request('GET', col + aid), 404, FA)
        expectError(expect, await api.request('GET', `${col}${aid}/download`), 404, FA)
        expectError(expect, await api.request('DELETE', col + aid), 404, FA)
        expect(await list(api, col)).toEqual([])
      },
    },
    {
      name: 'download returns the bytes with the stored type, a quote_plus filename* and a sandbox CSP',
      async run(api, expect) {
        const { col } = await setup(api, expect)
        const bytes = new Uint8Array([0, 1, 2, 250, 255, 10, 13])
        const aid = await attach(api, expect, col, bytes, 'карта и план.bin', 'application/x-thing')
        const res = await api.request('GET', `${col}${aid}/download`)
        expect(res.status).toBe(200)
        expect(res.bodyBase64).toBe(base64(bytes))
        expect(res.headers['content-type']).toBe('application/x-thing')
        // Not a passive type: a download, never a page (the original served it inline).
        expect(res.headers['content-disposition']).toBe(`attachment; filename*=utf-8''%D0%BA%D0%B0%D1%80%D1%82%D0%B0+%D0%B8+%D0%BF%D0%BB%D0%B0%D0%BD.bin`)
        expect(res.headers['content-security-policy']).toBe('sandbox')
        // Unnamed: `unnamed<aid><ext>`.
        const txt = await attach(api, expect, col, 'abc', 'a.txt', 'text/plain')
        await api.request('PUT', col + txt, { body: { name: null } })
        const un = await api.request('GET', `${col}${txt}/download`)
        expect(un.headers['content-disposition']).toBe(`filename*=utf-8''unnamed${txt}.txt`)
        expect(un.text).toBe('abc')
        expectError(expect, await api.request('GET', `${col}987654/download`), 404, FA)
      },
    },
    {
      name: 'image: original without size; size fits inside the box keeping the aspect, same format',
      async run(api, expect) {
        const { col } = await setup(api, expect)
        const jpg = makeJpeg(32, 16)
        const aid = await attach(api, expect, col, jpg, 'wide.jpg', 'image/jpeg')
        const orig = await api.request('GET', `${col}${aid}/image`)
        expect(orig.status).toBe(200)
        expect(orig.headers['content-type']).toBe('image/jpeg')
        expect(orig.bodyBase64).toBe(base64(jpg))
        const small = await api.request('GET', `${col}${aid}/image?size=8x8`)
        expect(small.status).toBe(200)
        expect(small.headers['content-type']).toBe('image/jpeg')
        expect(imageSize(small.bodyBase64!, 'image/jpeg')).toEqual([8, 4])
        // Colours survive: red on the left, blue on the right.
        const [r1, , b1] = jpegPixel(small.bodyBase64!, 1, 2)
        const [r2, , b2] = jpegPixel(small.bodyBase64!, 6, 2)
        expect(r1).toBeGreaterThan(200); expect(b1).toBeLessThan(60)
        expect(b2).toBeGreaterThan(200); expect(r2).toBeLessThan(60)
        expect(imageSize((await api.request('GET', `${col}${aid}/image?size=100x4`)).bodyBase64!, 'image/jpeg')).toEqual([8, 4])
        // Never enlarged.
        expect(imageSize((await api.request('GET', `${col}${aid}/image?size=640x480`)).bodyBase64!, 'image/jpeg')).toEqual([32, 16])
        // crop=true cuts the box's aspect first.
        expect(imageSize((await api.request('GET', `${col}${aid}/image?size=8x8&crop=true`)).bodyBase64!, 'image/jpeg')).toEqual([8, 8])
        expect(imageSize((await api.request('GET', `${col}${aid}/image?size=40x40&crop=true`)).bodyBase64!, 'image/jpeg')).toEqual([16, 16])
        const png = await attach(api, expect, col, makePng(10, 30), 'tall.png', 'image/png')
        const p = await api.request('GET', `${col}${png}/image?size=6x6`)
        expect(p.headers['content-type']).toBe('image/png')
        expect(imageSize(p.bodyBase64!, 'image/png')).toEqual([2, 6])
      },
    },
    {
      name: 'image applies the EXIF orientation before fitting',
      async run(api, expect) {
        const { col } = await setup(api, expect)
        // Stored 32×16 with orientation 6 (rotate 90° clockwise): upright it is 16×32.
        const aid = await attach(api, expect, col, makeJpeg(32, 16, PHOTO_EXIF), 'rotated.jpg', 'image/jpeg')
        const res = await api.request('GET', `${col}${aid}/image?size=8x8`)
        expect(imageSize(res.bodyBase64!, 'image/jpeg')).toEqual([4, 8])
        // The stored left (red) half is on top after the rotation.
        const [rTop, , bTop] = jpegPixel(res.bodyBase64!, 2, 1)
        const [rBottom, , bBottom] = jpegPixel(res.bodyBase64!, 2, 6)
        expect(rTop).toBeGreaterThan(200); expect(bTop).toBeLessThan(60)
        expect(bBottom).toBeGreaterThan(200); expect(rBottom).toBeLessThan(60)
      },
    },
    {
      name: 'image errors: bad size 422, non-image 422, unreadable image 422, unknown attachment 404',
      async run(api, expect) {
        const { col } = await setup(api, expect)
        const aid = await attach(api, expect, col, makeJpeg(8, 8), 'a.jpg', 'image/jpeg')
        for (const size of ['8', '8x', 'x8', '8X8', '-1x5', '0x5', '8x8x8', '1.5x2']) {
          const res = await api.request('GET', `${col}${aid}/image?size=${size}`)
          expectError(expect, res, 422, VALIDATION)
          expect(res.body.data.location).toEqual(['query', 'size'])
        }
        expectError(expect, await api.request('GET', `${col}${aid}/image?size=4x4&crop=True`), 422, VALIDATION)
        const txt = await attach(api, expect, col, 'text', 'a.txt', 'text/plain')
        expectError(expect, await api.request('GET', `${col}${txt}/image`), 422, VALIDATION)
        expectError(expect, await api.request('GET', `${col}${txt}/image?size=4x4`), 422, VALIDATION)
        // Declared a JPEG, but it is not one.
        const fake = await attach(api, expect, col, 'not a jpeg', 'fake.jpg', 'image/jpeg')
        expectError(expect, await api.request('GET', `${col}${fake}/image?size=4x4`), 422, VALIDATION)
        expectError(expect, await api.request('GET', `${col}987654/image`), 404, FA)
      },
    },
    {
      name: 'feature PUT extensions.attachment is the full list: update listed, create from file_upload, delete the rest',
      async run(api, expect) {
        const { feature, col } = await setup(api, expect)
        const a = await attach(api, expect, col, 'a', 'a.txt', 'text/plain')
        const b = await attach(api, expect, col, 'b', 'b.txt', 'text/plain')
        const photo = makeJpeg(16, 8, PHOTO_EXIF)
        const file_upload = await upload(api, expect, photo, 'p.jpg', 'image/jpeg')
        const res = await api.request('PUT', feature, { body: { extensions: { attachment: [
          { id: a, description: 'kept', name: 'a2.txt' }, { file_upload, description: 'new one' }] } } })
        expect(res.status).toBe(200)
        const now = await list(api, col)
        expect(now).toHaveLength(2)
        expect(now[0]).toMatchObject({ id: a, name: 'a2.txt', description: 'kept', size: 1 })
        expect(now[1]).toMatchObject({ name: 'p.jpg', mime_type: 'image/jpeg', description: 'new one', size: photo.length,
          is_image: true, file_meta: { timestamp: '2024-05-01T10:00:00' } })
        expect(now[1].id).not.toBe(b)
        expectError(expect, await api.request('GET', col + b), 404, FA)
        const dl = await api.request('GET', `${col}${now[1].id}/download`)
        expect(dl.bodyBase64).toBe(base64(photo))
        // Sending back what GET returned keeps everything.
        const got = (await api.request('GET', feature)).body
        expect((await api.request('PUT', feature, { body: { extensions: got.extensions } })).status).toBe(200)
        expect(await list(api, col)).toEqual(now)
        // [] deletes all; so does null.
        await api.request('PUT', feature, { body: { extensions: { attachment: [] } } })
        expect(await list(api, col)).toEqual([])
        expect((await api.request('GET', feature)).body.extensions.attachment).toBeNull()
        await attach(api, expect, col, 'c', 'c.txt', 'text/plain')
        await api.request('PUT', feature, { body: { extensions: { attachment: null } } })
        expect(await list(api, col)).toEqual([])
      },
    },
    {
      name: 'feature writes with attachments are all or nothing (422 leaves features and attachments as they were)',
      async run(api, expect) {
        const { layer, feature, col } = await setup(api, expect)
        const a = await attach(api, expect, col, 'a', 'a.txt', 'text/plain')
        const before = await list(api, col)
        const file_upload = await upload(api, expect, 'n', 'n.txt', 'text/plain')
        const bad = [
          [{ file_upload }, { file_upload: MISSING_UPLOAD }],
          [{ file_upload }, { name: 'no file' }],
          [{ file_upload }, { id: 987654 }],
          [{ file_upload }, { id: a }, { id: a }],
          [{ file_upload, name: 5 }],
          [{ file_upload, keyname: 'dup' }, { id: a, keyname: 'dup' }],
        ]
        for (const attachment of bad) {
          const res = await api.request('PUT', feature, { body: { fields: { name: 'changed' }, extensions: { attachment } } })
          expect(res.status).toBe(422)
          expect(res.body.exception).toMatch(/ValidationError|FileUploadNotFound/)
        }
        expect(await list(api, col)).toEqual(before)
        expect((await api.request('GET', feature)).body.fields.name).toBe('a')
        // A batch: the first item is fine, the second references a missing upload.
        const count = (await api.request('GET', `/api/resource/${layer}/feature_count`)).body.total_count
        const batch = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [
          { geom: 'POINT(5 5)', extensions: { attachment: [{ file_upload }] } },
          { geom: 'POINT(6 6)', extensions: { attachment: [{ file_upload: MISSING_UPLOAD }] } }] })
        expectError(expect, batch, 422, UPLOAD_NOT_FOUND)
        expect((await api.request('GET', `/api/resource/${layer}/feature_count`)).body.total_count).toBe(count)
        expectError(expect, await api.request('PUT', feature, { body: { extensions: { attachment: [] } }, auth: 'guest' }), 403, FORBIDDEN)
        expect(await list(api, col)).toEqual(before)
      },
    },
    {
      name: 'feature POST and PATCH create attachments from file_upload; deleting the feature deletes them',
      async run(api, expect) {
        const { layer } = await setup(api, expect)
        const file_upload = await upload(api, expect, 'one', 'one.txt', 'text/plain')
        const post = await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(3 3)',
          extensions: { attachment: [{ file_upload, keyname: 'k' }, { file_upload, name: 'again', description: 'same upload twice' }] } } })
        expect(post.status).toBe(200)
        const col = `/api/resource/${layer}/feature/${post.body.id}/attachment/`
        const made = await list(api, col)
        expect(made.map((x: { name: string; keyname: string | null; size: number }) => [x.name, x.keyname, x.size]))
          .toEqual([['one.txt', 'k', 3], ['one.txt', null, 3]])
        const patch = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [
          { geom: 'POINT(4 4)', extensions: { attachment: [{ file_upload }] } },
          { id: post.body.id, extensions: { attachment: [{ id: made[0].id }] } }] })
        expect(patch.status).toBe(200)
        const col2 = `/api/resource/${layer}/feature/${patch.body[0].id}/attachment/`
        expect((await list(api, col2)).map((x: { name: string }) => x.name)).toEqual(['one.txt'])
        expect((await list(api, col)).map((x: { id: number }) => x.id)).toEqual([made[0].id])
        const aid = made[0].id
        expect((await api.request('DELETE', `/api/resource/${layer}/feature/${post.body.id}`)).status).toBe(200)
        expect(await list(api, col)).toEqual([])
        expectError(expect, await api.request('GET', `${col}${aid}/download`), 404, FA)
      },
    },
  ]
}

export const attachmentCases: ApiCase[] = attachmentCasesOn(vectorPoints)
