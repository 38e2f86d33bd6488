/**
 * @module core/secret
 * Secrets at rest (a remote server's password): AES-GCM with a key the host keeps, a fresh
 * 12-byte IV per secret, stored as base64 of IV and ciphertext.
 */
import { fromBase64, toBase64 } from './bytes.ts'

export async function encryptSecret(key: CryptoKey, text: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const data = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(text)))
  const out = new Uint8Array(iv.length + data.length)
  out.set(iv)
  out.set(data, iv.length)
  return toBase64(out)
}

/** The text of a secret; throws when it was not made with `key` (another host, a new key). */
export async function decryptSecret(key: CryptoKey, stored: string): Promise<string> {
  const bytes = fromBase64(stored)
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.slice(0, 12) }, key, bytes.slice(12))
  return new TextDecoder().decode(plain)
}

/** A new random AES-GCM key that cannot be read back (the worker keeps it as it is). */
export function newSecretKey(): Promise<CryptoKey> {
  return crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'])
}

/** Imports 32 raw bytes (a key file) as a key that cannot be read back. */
export function importSecretKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt'])
}
