import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import type { Platform } from '../../sw/platform/platform.ts'
import { dispositionName, sanitizeName } from '../../sw/upload/body.ts'
import { findUpload, getUpload, readUpload, resolveUploadRef, storeUploads, tusAppend, tusCreate, UPLOAD_TTL_MS } from '../../sw/upload/service.ts'
import { sniffMime } from '../../sw/upload/sniff.ts'
import { parseUploadMetadata } from '../../sw/upload/tus.ts'
import { newUploadId, normalizeUploadId } from '../../sw/upload/upload-id.ts'
import { sqliteMain } from '../port/sqlite-main.ts'

const enc = (s: string) => new TextEncoder().encode(s)
const dec = (b: Uint8Array) => new TextDecoder().decode(b)

/** A Node app whose clock the test moves. */
function app(opts: { dataDir?: string; clock?: { t: number } } = {}) {
  const clock = opts.clock ?? { t: Date.now() }
  const platform: Platform = { ...nodePlatform({ dataDir: opts.dataDir, admin: { password: 'unit-test-pw', mustChange: false }, log: () => {} }),
    now: () => new Date(clock.t) }
  return { app: createApp(platform), platform, clock }
}

const dirs: string[] = []
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }) })

describe('upload/upload-id', () => {
  it('makes 32 lowercase hex ULIDs that start with the time', () => {
    const a = newUploadId(new Date(0x0123456789ab))
    expect(a).toMatch(/^0123456789ab[0-9a-f]{20}$/)
    expect(newUploadId(new Date(0x0123456789ab))).not.toBe(a)
  })
  it.each([
    ['0123456789abcdef0123456789abcdef', '0123456789abcdef0123456789abcdef'],
    ['01234567-89ab-cdef-0123-456789abcdef', '0123456789abcdef0123456789abcdef'],
    ['01234567-89AB-CDEF-0123-456789ABCDEF', '0123456789abcdef0123456789abcdef'],
    ['0123456789ABCDEF0123456789ABCDEF', undefined],
    ['0123456789abcdef0123456789abcde', undefined],
    ['0123456789abcdef-0123456789abcdef', undefined],
    ['upload', undefined],
  ])('normalizes %s', (raw, want) => {
    expect(normalizeUploadId(raw)).toBe(want)
  })
})

describe('upload/sniff', () => {
  it.each([
    [[0x50, 0x4b, 0x03, 0x04, 1, 2], 'application/zip'],
    [[0x1f, 0x8b, 8], 'application/gzip'],
    [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
    [[0xff, 0xd8, 0xff, 0xe0], 'image/jpeg'],
    [[0x49, 0x49, 0x2a, 0x00, 8], 'image/tiff'],
    [[...enc('SQLite format 3'), 0, 1, 2], 'application/vnd.sqlite3'],
    [[...enc('{"type": "FeatureCollection", "features": []}')], 'application/json'],
    [[...enc('name,value\nпривет,1\n')], 'text/plain'],
    [[0, 1, 2, 3], 'application/octet-stream'],
    [[0xc3, 0x28], 'application/octet-stream'],
    [[], 'application/octet-stream'],
  ])('sniffs %j as %s', (bytes, type) => {
    expect(sniffMime(new Uint8Array(bytes))).toBe(type)
  })
  it('does not take a UTF-8 character cut at the window edge for binary', () => {
    const text = 'я'.repeat(3000) // 6000 bytes: the 4096-byte head ends inside a character
    expect(sniffMime(enc(text))).toBe('text/plain')
  })
})

describe('upload/tus', () => {
  it('decodes Upload-Metadata pairs, including a key without a value', () => {
    expect(parseUploadMetadata(`name ${btoa('a.txt')}, mime_type ${btoa('text/plain')},is_confidential`))
      .toEqual({ name: 'a.txt', mime_type: 'text/plain', is_confidential: '' })
    expect(parseUploadMetadata(`name ${Buffer.from('карта.geojson').toString('base64')}`)).toEqual({ name: 'карта.geojson' })
    expect(parseUploadMetadata(null)).toEqual({})
  })
  it.each(['name a b', 'name !!!', `name ${btoa('x')},,`])('refuses malformed metadata %j with a 400', (v) => {
    expect(() => parseUploadMetadata(v)).toThrow(expect.objectContaining({ status: 400 }))
  })
})

describe('upload/body', () => {
  it.each([
    ['C:\\data\\points.csv', 'points.csv'],
    ['/home/u/roads.gpkg', 'roads.gpkg'],
    ['  plain.txt ', 'plain.txt'],
    ['dir/', undefined],
    ['', undefined],
  ])('sanitizes %j to %j', (raw, want) => {
    expect(sanitizeName(raw)).toBe(want)
  })
  it.each([
    ['attachment; filename="a b.txt"', 'a b.txt'],
    ['attachment; filename=plain.csv; size=3', 'plain.csv'],
    [`attachment; filename="x.txt"; filename*=UTF-8''%D0%BA%D0%B0%D1%80%D1%82%D0%B0.txt`, 'карта.txt'],
    ['inline', undefined],
  ])('reads the name of %j', (header, want) => {
    expect(dispositionName(header)).toBe(want)
  })
})

describe('upload/service', () => {
  it('joins TUS parts in order and keeps them across a restart of the Node host', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outpost-upload-'))
    dirs.push(dir)
    const first = app({ dataDir: dir })
    const s1 = await first.app.services()
    const id = await tusCreate(s1, 11, 'greeting.txt')
    await tusAppend(s1, (await findUpload(s1, id))!, 0, enc('hello '))
    await sqliteMain(s1).close()

    // Another process over the same folder: the acknowledged chunk is there.
    const second = app({ dataDir: dir })
    const s2 = await second.app.services()
    const info = (await findUpload(s2, id))!
    expect(info).toMatchObject({ received: 6, incomplete: true })
    await expect(readUpload(s2, id)).rejects.toMatchObject({ status: 422, exception: 'nextgisweb.file_upload.model.FileUploadNotCompleted' })
    expect(await tusAppend(s2, info, 6, enc('world'))).toBe(11)
    expect(dec(await readUpload(s2, id))).toBe('hello world')
    expect(await getUpload(s2, id)).toEqual({ id, size: 11, name: 'greeting.txt', mime_type: 'text/plain' })
  })

  it('lets only one of two PATCHes racing at the same offset count', async () => {
    const { app: a } = app()
    const s = await a.services()
    const id = await tusCreate(s, 4, undefined, 'application/octet-stream')
    const info = (await findUpload(s, id))!
    const results = await Promise.allSettled([tusAppend(s, info, 0, enc('ab')), tusAppend(s, info, 0, enc('AB'))])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
    expect(lost.reason).toMatchObject({ status: 409 })
    const winner = results[0]!.status === 'fulfilled' ? 'ab' : 'AB'
    await tusAppend(s, (await findUpload(s, id))!, 2, enc('cd'))
    expect(dec(await readUpload(s, id))).toBe(winner + 'cd')
  })

  it('resolves upload refs from bodies, with the original 422s', async () => {
    const { app: a } = app()
    const s = await a.services()
    const [rec] = await storeUploads(s, [{ bytes: enc('x'), name: 'x.txt', mimeType: 'text/plain' }])
    expect(await resolveUploadRef(s, { ...rec, incomplete: false }, '$.file_upload')).toEqual(rec)
    await expect(resolveUploadRef(s, { id: '0'.repeat(32) }, '$.file_upload'))
      .rejects.toMatchObject({ status: 422, exception: 'nextgisweb.file_upload.model.FileUploadNotFound' })
    await expect(resolveUploadRef(s, { id: 'nonsense' })).rejects.toMatchObject({ status: 422 })
    await expect(resolveUploadRef(s, { id: 5 }, '$.file_upload')).rejects.toMatchObject({ status: 422,
      message: 'Expected `str`, got `int` - at `$.file_upload.id`' })
    await expect(resolveUploadRef(s, 'abc', '$.file_upload')).rejects.toMatchObject({ status: 422 })
    const tus = await tusCreate(s, 3)
    await expect(resolveUploadRef(s, { id: tus })).rejects.toMatchObject({ status: 422,
      exception: 'nextgisweb.file_upload.model.FileUploadNotCompleted' })
  })

  it('forgets uploads after the TTL and sweeps their bytes on a later write', async () => {
    const { app: a, platform, clock } = app()
    const s = await a.services()
    const [old] = await storeUploads(s, [{ bytes: enc('old bytes') }])
    const tus = await tusCreate(s, 10)
    await tusAppend(s, (await findUpload(s, tus))!, 0, enc('part'))
    clock.t += UPLOAD_TTL_MS + 1000
    expect(await getUpload(s, old!.id)).toBeUndefined()
    await expect(readUpload(s, old!.id)).rejects.toMatchObject({ status: 422 })
    expect(await platform.store.getBlob(`upload-${old!.id}`)).toBeDefined()
    await storeUploads(s, [{ bytes: enc('new') }])
    expect(await platform.store.getBlob(`upload-${old!.id}`)).toBeUndefined()
    const rows = await sqliteMain(s).read((db) => db.selectValue('SELECT count(*) FROM upload'))
    expect(rows).toBe(1)
  })
})
