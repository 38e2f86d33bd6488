/**
 * @module core/bytes
 */

/** The chunks joined into one array; a single chunk is returned as it is. */
export function concatBytes(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.length
  }
  return out
}

/** Standard base64 with padding, as the original writes bytes in JSON. */
export function toBase64(bytes: Uint8Array): string {
  let s = ''
  // In slices: spreading a whole large array into fromCharCode overflows the call stack.
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(s)
}

/** The bytes of a base64 text; throws (a DOMException) when the text is not base64. */
export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0))
}

/** A base64 text decoded as strict UTF-8; throws when it is not base64 or not UTF-8. */
export function base64ToUtf8(text: string): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(fromBase64(text))
}
