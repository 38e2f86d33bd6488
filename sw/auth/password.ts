/**
 * @module auth/password
 * Password hashing with PBKDF2-SHA256 through WebCrypto (same code in the worker and Node).
 * Stored form: `pbkdf2_sha256$<iterations>$<salt b64>$<hash b64>`.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { fromBase64, toBase64 } from '../core/bytes.ts'

/** OWASP's 2023 figure for PBKDF2-HMAC-SHA256. */
const ITERATIONS = 600_000


async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, ['deriveBits'])
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: salt as Uint8Array<ArrayBuffer>, iterations }, key, 256)
  return new Uint8Array(bits)
}

export async function hashPassword(password: string, iterations = ITERATIONS): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16))
  return `pbkdf2_sha256$${iterations}$${toBase64(salt)}$${toBase64(await derive(password, salt, iterations))}`
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, iter, salt, hash] = (stored ?? '').split('$')
  if (scheme !== 'pbkdf2_sha256' || !iter || !salt || !hash) return verifyNothing(password)
  const got = await derive(password, fromBase64(salt), Number(iter))
  const want = fromBase64(hash)
  // Constant-time compare: the loop always runs over every byte.
  let diff = got.length ^ want.length
  for (let i = 0; i < Math.min(got.length, want.length); i++) diff |= got[i]! ^ want[i]!
  return diff === 0
}

/**
 * Does the work of one `verifyPassword` and returns false: run for a login name that has no
 * password, so that an unknown user takes as long to refuse as a known one.
 */
export async function verifyNothing(password: string): Promise<false> {
  await derive(password, new Uint8Array(16), ITERATIONS)
  return false
}

/** A random password for a fresh Node server: 16 characters, no look-alikes. */
export function randomPassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => alphabet[b % alphabet.length]).join('')
}

/**
 * SHA-256 hex of a string: the key of the verified-credentials cache and of sessions, made on
 * every request that carries credentials. Synchronous and in JavaScript: WebCrypto's digest is
 * asynchronous, a round trip through a thread pool (59 µs against 3 µs on Node).
 */
export function sha256Hex(s: string): string {
  return bytesToHex(sha256(utf8ToBytes(s)))
}
