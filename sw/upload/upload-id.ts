/**
 * @module upload/upload-id
 * Upload ids: a ULID written as 32 lowercase hex characters, as the original's
 * `FileUploadID` (reference §7). The dashed UUID spelling of the same 128 bits, which very
 * old documentation shows, is accepted on input and normalized.
 */

const HEX32 = /^[0-9a-f]{32}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A new ULID as hex: 48 bits of milliseconds since the epoch, then 80 random bits. */
export function newUploadId(now: Date): string {
  const bytes = new Uint8Array(16)
  crypto.getRandomValues(bytes.subarray(6))
  let ms = now.getTime()
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256
    ms = Math.floor(ms / 256)
  }
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** The canonical id for `raw`, or `undefined` when it is neither form (the routes answer 404). */
export function normalizeUploadId(raw: string): string | undefined {
  if (HEX32.test(raw)) return raw
  if (UUID.test(raw)) return raw.replace(/-/g, '').toLowerCase()
  return undefined
}

/** When upload `id` (canonical hex) was made: its ULID's milliseconds since the epoch. */
export const uploadIdTime = (id: string) => parseInt(id.slice(0, 12), 16)
