import { describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { sha256Hex } from '../../sw/auth/password.ts'

describe('auth/password: sha256Hex', () => {
  it('is SHA-256 as hex, byte for byte what node:crypto and WebCrypto give (stored session keys stay valid)', async () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    for (const s of ['', 'administrator\u0000pw', 'ñandú 🌍 '.repeat(40)]) {
      expect(sha256Hex(s)).toBe(createHash('sha256').update(s, 'utf8').digest('hex'))
      const web = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s)))
      expect(sha256Hex(s)).toBe(Buffer.from(web).toString('hex'))
    }
  })
})
