import { describe, expect, it } from 'vitest'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { originAllowed } from '../../sw/core/cors.ts'
import { decryptSecret, encryptSecret, newSecretKey } from '../../sw/core/secret.ts'
import { nodeSecretKey } from '../../sw/host/node-secret.ts'
import { decodeCursor, encodeCursor } from '../../sw/feature/versioning/cursor.ts'
import { sameState, stateHash, withChanges } from '../../sw/sync/state.ts'
import { parseRemoteJson } from '../../sw/sync/remote-json.ts'
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import type { Field } from '../../sw/feature/types.ts'
import { sqliteMain } from '../port/sqlite-main.ts'

describe('CORS origins', () => {
  it.each([
    ['https://app.example.org', ['https://app.example.org'], true],
    ['https://a.example.org', ['https://*.example.org'], true],
    ['https://example.org', ['https://*.example.org'], false],
    ['http://a.example.org', ['https://*.example.org'], false],
    ['https://evil.org/x.example.org', ['https://*.example.org'], false],
    ['https://evilexample.org', ['https://*.example.org'], false],
    ['http://127.0.0.1:4173', ['http://127.0.0.1:4173'], true],
    ['http://127.0.0.1:4174', ['http://127.0.0.1:4173'], false],
  ])('%s against %j is %s', (origin, allowed, ok) => {
    expect(originAllowed(origin, allowed)).toBe(ok)
  })
})

describe('secrets at rest', () => {
  it('encrypts with AES-GCM: the text is not in the stored form, a fresh IV each time, another key cannot read it', async () => {
    const key = await newSecretKey()
    const a = await encryptSecret(key, 'correct horse')
    const b = await encryptSecret(key, 'correct horse')
    expect(a).not.toBe(b)
    expect(atob(a)).not.toContain('correct horse')
    expect(await decryptSecret(key, a)).toBe('correct horse')
    await expect(decryptSecret(await newSecretKey(), a)).rejects.toThrow()
  })

  it('keeps the Node host\'s key in the data folder, readable by its owner only, the same after a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outpost-key-'))
    try {
      const sealed = await encryptSecret(await nodeSecretKey(dir)(), 'field crew')
      expect((await stat(join(dir, 'secret.key'))).mode & 0o777).toBe(0o600)
      expect(await decryptSecret(await nodeSecretKey(dir)(), sealed)).toBe('field crew')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('stores a connection\'s password encrypted in the main database', async () => {
    const platform = nodePlatform({ admin: { password: 'pw', mustChange: false }, log: () => {} })
    const app = createApp(platform)
    const res = await app.fetch(new Request('http://host/api/resource/', { method: 'POST',
      headers: { authorization: 'Basic ' + btoa('administrator:pw') }, body: JSON.stringify({
        resource: { cls: 'remote_connection', parent: { id: 0 }, display_name: 'T' },
        remote_connection: { url: 'https://t.example.org', username: 'u', password: 'plain-password-here' } }) }))
    expect(res.status).toBe(201)
    const data = await sqliteMain(await app.services()).read((db) => String(db.selectValue(`SELECT data FROM resource WHERE cls = 'remote_connection'`)))
    expect(data).not.toContain('plain-password-here')
    const stored = JSON.parse(data).password as string
    expect(await decryptSecret(await platform.secretKey(), stored)).toBe('plain-password-here')
  })
})

describe('changes feed cursor', () => {
  it('round-trips and refuses anything else with a 422', () => {
    const c = { fields: [3, 4], extensions: ['attachment'], fidLast: 120 }
    expect(decodeCursor(encodeCursor(c))).toEqual(c)
    expect(encodeCursor(c)).toMatch(/^[A-Za-z0-9_-]+$/)
    for (const bad of ['', 'x', encodeCursor(c).slice(0, -3), btoa('{"a":1}')]) {
      expect(() => decodeCursor(bad)).toThrow(expect.objectContaining({ status: 422 }))
    }
  })
})

describe('feature states', () => {
  const field = (id: number, keyname: string) => ({ id, keyname, datatype: 'STRING' }) as Field
  it('compares values, not key order, and treats missing as null', () => {
    const a = { geom: 'AQE=', fields: { a: 1, b: null }, description: null }
    const b = { geom: 'AQE=', fields: { b: undefined, a: 1 }, description: undefined }
    expect(sameState(a, b as never)).toBe(true)
    expect(stateHash(a)).toBe(stateHash({ geom: 'AQE=', fields: { b: null, a: 1 }, description: null }))
    expect(sameState(a, { ...a, fields: { a: 2, b: null } })).toBe(false)
    expect(sameState(null, null)).toBe(true)
    expect(sameState(a, null)).toBe(false)
  })

  it('applies a remote update: only the fields it names, the geometry when it has one', () => {
    const byRid = new Map([[10, field(1, 'a')], [11, field(2, 'b')]])
    const base = { geom: 'AAA=', fields: { a: 'x', b: 'y' }, description: 'd' }
    expect(withChanges(base, { fields: [[11, 'z'], [99, 'ignored']] }, byRid)).toEqual({ geom: 'AAA=', fields: { a: 'x', b: 'z' }, description: 'd' })
    expect(withChanges(base, { geom: null }, byRid).geom).toBeNull()
  })
})

describe('the remote\'s JSON', () => {
  it('keeps every digit of integers past 2^53 (as text), and reads everything else as JSON.parse does', () => {
    const feed = '[{"action":"feature.update","fid":3,"vid":9,"fields":[[32,9007199254740993],[33,-9223372036854775807],[34,12],[35,1.5e300]]}]'
    expect(parseRemoteJson(feed)).toEqual([{ action: 'feature.update', fid: 3, vid: 9,
      fields: [[32, '9007199254740993'], [33, '-9223372036854775807'], [34, 12], [35, 1.5e300]] }])
    // 2^53 - 1 is exact as a number; a long run of digits inside a string stays a string.
    expect(parseRemoteJson('{"a":9007199254740991,"b":"12345678901234567890","a":1}')).toEqual({ a: 1, b: '12345678901234567890' })
    expect(parseRemoteJson('{"x":0.12345678901234567890}')).toEqual({ x: 0.12345678901234568 })
    expect(Object.getPrototypeOf(parseRemoteJson('{"__proto__":{"p":1},"n":12345678901234567890}'))).toBe(Object.prototype)
    expect(() => parseRemoteJson('{"n":12345678901234567890')).toThrow(SyntaxError)
  })
})
