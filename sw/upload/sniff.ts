/**
 * @module upload/sniff
 * A small stand-in for libmagic, which the original runs when a client sends no media type:
 * the signatures of the formats this server ingests, then text versus binary.
 */

/** Bytes of the head that decide text versus binary. */
export const SNIFF_WINDOW = 4096

/** [offset, signature bytes, media type], first match wins. */
const SIGNATURES: Array<[number, number[], string]> = [
  [0, [0x50, 0x4b, 0x03, 0x04], 'application/zip'],
  [0, [0x50, 0x4b, 0x05, 0x06], 'application/zip'],
  [0, [0x1f, 0x8b], 'application/gzip'],
  [0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
  [0, [0xff, 0xd8, 0xff], 'image/jpeg'],
  [0, [0x47, 0x49, 0x46, 0x38], 'image/gif'],
  [0, [0x49, 0x49, 0x2a, 0x00], 'image/tiff'],
  [0, [0x4d, 0x4d, 0x00, 0x2a], 'image/tiff'],
  [0, [0x49, 0x49, 0x2b, 0x00], 'image/tiff'], // BigTIFF
  [0, [0x25, 0x50, 0x44, 0x46, 0x2d], 'application/pdf'],
  // "SQLite format 3\0"; a GeoPackage is an SQLite file as far as magic bytes go.
  [0, [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x20, 0x33, 0x00], 'application/vnd.sqlite3'],
]

function startsWith(bytes: Uint8Array, offset: number, sig: number[]): boolean {
  if (bytes.length < offset + sig.length) return false
  for (let i = 0; i < sig.length; i++) if (bytes[offset + i] !== sig[i]) return false
  return true
}

/** The media type of `bytes` by content; `application/octet-stream` when nothing matches. */
export function sniffMime(bytes: Uint8Array): string {
  for (const [offset, sig, type] of SIGNATURES) if (startsWith(bytes, offset, sig)) return type
  if (bytes.length === 0) return 'application/octet-stream'
  // Text when the head is valid UTF-8 without control bytes other than whitespace.
  const head = bytes.subarray(0, SNIFF_WINDOW)
  for (const b of head) if (b < 0x09 || (b > 0x0d && b < 0x20) || b === 0x7f) return 'application/octet-stream'
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.length < bytes.length ? trimPartial(head) : head)
  } catch {
    return 'application/octet-stream'
  }
  const text = new TextDecoder().decode(head).trimStart()
  if ((text.startsWith('{') || text.startsWith('[')) && head.length === bytes.length) {
    try { JSON.parse(text); return 'application/json' } catch { /* plain text */ }
  }
  return 'text/plain'
}

/** Drops a UTF-8 sequence cut off at the end of a head slice, so it does not look invalid. */
function trimPartial(head: Uint8Array): Uint8Array {
  let end = head.length
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const b = head[end - i]!
    if ((b & 0xc0) === 0xc0) return head.subarray(0, end - i) // lead byte of a cut sequence
    if ((b & 0xc0) !== 0x80) break
  }
  return head
}
