import { mkdtemp, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import { FileStore } from '../../sw/host/node-store.ts'
import { newUploadId } from '../../sw/upload/upload-id.ts'

const AUTH = { authorization: 'Basic ' + btoa('administrator:pw') }
const DAY = 24 * 3600 * 1000

describe('orphaned upload blobs', () => {
  it('are swept by the first upload after a start once their upload has expired; fresh ones stay', async () => {
    const platform = nodePlatform({ admin: { password: 'pw', mustChange: false }, log: () => {} })
    const { store } = platform
    // What a process stopped between saving bytes and recording them leaves: a whole blob, TUS parts.
    const old = newUploadId(new Date(Date.now() - 3 * DAY))
    const recent = newUploadId(new Date(Date.now() - 3600 * 1000))
    for (const b of [`upload-${old}`, `upload-${old}.0-0a0b0c0d`, `upload-${old}.512-01020304`, `upload-${recent}`, 'attachment-1']) {
      await store.putBlob(b, new Uint8Array([1, 2, 3]))
    }
    const app = createApp(platform)
    const fd = new FormData()
    fd.append('file', new Blob([new Uint8Array([9, 8, 7])]), 'a.bin')
    const res = await app.fetch(new Request('http://host/api/component/file_upload/', { method: 'POST', headers: AUTH, body: fd }))
    expect(res.status).toBe(200)
    const id = (await res.json()).upload_meta[0].id as string
    expect((await store.listBlobs('')).sort()).toEqual(['attachment-1', `upload-${id}`, `upload-${recent}`].sort())
    // The new upload is whole and usable.
    const got = await app.fetch(new Request(`http://host/api/component/file_upload/${id}`, { headers: AUTH }))
    expect((await got.json()).size).toBe(3)
  })

  it('on the Node host, temporary files of writes an earlier process did not finish are deleted when the store opens', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outpost-orphans-'))
    const first = new FileStore(dir)
    await first.putBlob('upload-kept', new Uint8Array([1]))
    const blobs = join(dir, 'blobs')
    await writeFile(join(blobs, `.upload-x.${process.pid + 1}.1700000000000.tmp`), 'left by a killed process')
    await writeFile(join(blobs, `.upload-y.${process.pid}.1700000000000.tmp`), 'this process is writing it')
    const second = new FileStore(dir)
    expect(await second.listBlobs('upload-')).toEqual(['upload-kept'])
    expect((await readdir(blobs)).sort()).toEqual([`.upload-y.${process.pid}.1700000000000.tmp`, 'upload-kept'])
  })
})
