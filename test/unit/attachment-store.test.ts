import { describe, expect, it } from 'vitest'
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import type { Store } from '../../sw/store/store.ts'
import { makeJpeg } from '../api/cases/attachment-images.ts'

const AUTH = { authorization: 'Basic ' + btoa('administrator:pw') }

/** An app whose store reports which blobs exist, to check that failures leave nothing behind. */
async function setup(versioned = false) {
  const platform = nodePlatform({ admin: { password: 'pw', mustChange: false }, log: () => {} })
  const blobs = new Set<string>()
  const store = platform.store
  const put = store.putBlob.bind(store), del = store.deleteBlob.bind(store)
  store.putBlob = async (id, data) => { await put(id, data); blobs.add(id) }
  store.deleteBlob = async (id) => { await del(id); blobs.delete(id) }
  const app = createApp(platform)
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(new Request(`http://host${path}`, { method, headers: AUTH, body: body === undefined ? undefined : JSON.stringify(body) }))
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : undefined }
  }
  const upload = async (bytes: Uint8Array, name: string) => {
    const fd = new FormData()
    fd.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name)
    const res = await app.fetch(new Request('http://host/api/component/file_upload/', { method: 'POST', headers: AUTH, body: fd }))
    return (await res.json()).upload_meta[0]
  }
  const layer = (await call('POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'L' },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [] },
    feature_layer: { versioning: { enabled: versioned } } })).body.id as number
  const fid = (await call('POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(1 2)' })).body.id as number
  const attachmentBlobs = () => [...blobs].filter((b) => b.startsWith('attachment-')).sort()
  return { platform, call, upload, layer, fid, col: `/api/resource/${layer}/feature/${fid}/attachment/`, attachmentBlobs }
}

describe('attachment storage', () => {
  it('keeps one blob per attachment and deletes it with the attachment', async () => {
    const { call, upload, col, attachmentBlobs, platform } = await setup()
    const photo = makeJpeg(8, 8)
    const aid = (await call('POST', col, { file_upload: await upload(photo, 'a.jpg') })).body.id
    expect(attachmentBlobs()).toHaveLength(1)
    expect(await platform.store.getBlob(attachmentBlobs()[0]!)).toEqual(photo)
    // Replacing the file swaps the blob.
    const old = attachmentBlobs()[0]
    await call('PUT', col + aid, { file_upload: await upload(new Uint8Array([1, 2, 3]), 'b.bin') })
    expect(attachmentBlobs()).toHaveLength(1)
    expect(attachmentBlobs()[0]).not.toBe(old)
    expect((await call('DELETE', col + aid)).body).toBeNull()
    expect(attachmentBlobs()).toEqual([])
  })

  it('leaves no blob behind when a write fails after staging', async () => {
    const { call, upload, layer, fid, col, attachmentBlobs } = await setup()
    const file_upload = await upload(new Uint8Array([1]), 'x.bin')
    await call('POST', col, { file_upload, keyname: 'k' })
    const before = attachmentBlobs()
    const missing = { id: '0123456789abcdef0123456789abcdef' }
    const fails = [
      ['POST', col, { file_upload, keyname: 'k' }],
      ['PUT', `/api/resource/${layer}/feature/${fid}`, { extensions: { attachment: [{ file_upload }, { file_upload: missing }] } }],
      ['PUT', `/api/resource/${layer}/feature/${fid}`, { extensions: { attachment: [{ file_upload }, { name: 'no file' }] } }],
      ['PATCH', `/api/resource/${layer}/feature/`, [{ geom: 'POINT(1 1)', extensions: { attachment: [{ file_upload }] } }, { id: 987654, fields: {} }]],
    ] as const
    for (const [method, path, body] of fails) {
      const res = await call(method, path, body)
      expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400)
      expect(attachmentBlobs()).toEqual(before)
    }
  })

  it('deletes the blobs of a feature when the feature goes, and of all features on DELETE /feature/', async () => {
    const { call, upload, layer, fid, col, attachmentBlobs } = await setup()
    const file_upload = await upload(new Uint8Array([1]), 'x.bin')
    await call('POST', col, { file_upload })
    await call('POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(3 3)', extensions: { attachment: [{ file_upload }] } })
    expect(attachmentBlobs()).toHaveLength(2)
    await call('DELETE', `/api/resource/${layer}/feature/${fid}`)
    expect(attachmentBlobs()).toHaveLength(1)
    await call('DELETE', `/api/resource/${layer}/feature/`)
    expect(attachmentBlobs()).toEqual([])
  })

  it('keeps old files for the history of a versioned layer until versioning is turned off', async () => {
    const { call, upload, layer, fid, col, attachmentBlobs } = await setup(true)
    const aid = (await call('POST', col, { file_upload: await upload(new Uint8Array([1]), 'a.bin') })).body.id
    await call('PUT', col + aid, { file_upload: await upload(new Uint8Array([2]), 'b.bin') })
    await call('DELETE', `/api/resource/${layer}/feature/${fid}`)
    expect(attachmentBlobs()).toHaveLength(2)
    await call('PUT', `/api/resource/${layer}`, { feature_layer: { versioning: { enabled: false } } })
    await call('GET', `/api/resource/${layer}/feature/`) // the history goes when the layer is next opened
    expect(attachmentBlobs()).toEqual([])
  })

  it('deletes the blobs of every attachment when the layer resource is deleted, open or not', async () => {
    const { call, upload, layer, col, attachmentBlobs, platform } = await setup()
    await call('POST', col, { file_upload: await upload(new Uint8Array([1]), 'x.bin') })
    await call('POST', col, { file_upload: await upload(new Uint8Array([2]), 'y.bin') })
    expect(attachmentBlobs()).toHaveLength(2)
    expect((await call('DELETE', `/api/resource/${layer}`)).status).toBe(200)
    // The drop runs behind the delete's commit; wait for it to reach the store.
    await expect.poll(async () => (await platform.store.listDatabases()).includes(`layer-${layer}`)).toBe(false)
    expect(attachmentBlobs()).toEqual([])

    // A drop interrupted after the delete's commit (a worker stopped then): the next app's
    // sweep drops the database and the blobs.
    const { call: call2, upload: upload2, layer: layer2, col: col2, attachmentBlobs: blobs2, platform: p2 } = await setup()
    await call2('POST', col2, { file_upload: await upload2(new Uint8Array([3]), 'z.bin') })
    const s = p2.store
    const stopped: Store = { openDatabase: (n) => s.openDatabase(n), listDatabases: () => s.listDatabases(),
      putBlob: (i, d) => s.putBlob(i, d), putBlobStream: (i, c) => s.putBlobStream(i, c), getBlob: (i) => s.getBlob(i), listBlobs: (p) => s.listBlobs(p), close: () => s.close(),
      deleteDatabase: () => Promise.reject(new Error('stopped')), deleteBlob: () => Promise.reject(new Error('stopped')) }
    const other = createApp({ ...p2, store: stopped })
    const del = await other.fetch(new Request(`http://host/api/resource/${layer2}`, { method: 'DELETE', headers: AUTH }))
    expect(del.status).toBe(200)
    expect(blobs2()).toHaveLength(1)
    const third = createApp(p2)
    const fresh = await third.fetch(new Request('http://host/api/resource/', { method: 'POST', headers: AUTH, body: JSON.stringify({
      resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'Another' }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT' } }) }))
    const listed = await third.fetch(new Request(`http://host/api/resource/${(await fresh.json()).id}/feature/`, { headers: AUTH }))
    expect(listed.status).toBe(200)
    expect((await p2.store.listDatabases()).includes(`layer-${layer2}`)).toBe(false)
    expect(blobs2()).toEqual([])
  })
})
