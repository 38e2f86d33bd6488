/**
 * @module ingest/encoding
 * Text encodings of source files. The spec admits UTF-8 and CP1251 only: a shapefile names
 * its encoding in a `.cpg` (or the DBF's language byte), the upload may name one, text formats
 * are checked byte by byte. Values are checked for characters a person cannot see.
 */

export type SourceEncoding = 'UTF-8' | 'CP1251'

/** The spellings of the two encodings in `.cpg` files, DBF language ids and upload records. */
const NAMES: Record<string, SourceEncoding> = {
  'utf-8': 'UTF-8', utf8: 'UTF-8', '65001': 'UTF-8',
  cp1251: 'CP1251', 'windows-1251': 'CP1251', win1251: 'CP1251', '1251': 'CP1251', 'ansi 1251': 'CP1251',
  'x-cp1251': 'CP1251',
}

/** The encoding `name` stands for, or `undefined` when it is neither UTF-8 nor CP1251. */
export function supportedEncoding(name: string): SourceEncoding | undefined {
  return NAMES[name.trim().toLowerCase().replace(/_/g, '-')] ?? NAMES[name.trim().toLowerCase()]
}

/**
 * The offset of the first byte that breaks UTF-8 in `bytes`, or -1 when they are valid
 * UTF-8. Overlong forms and surrogates count as broken, as the standard says.
 */
export function invalidUtf8At(bytes: Uint8Array): number {
  const n = bytes.length
  let i = 0
  while (i < n) {
    const b = bytes[i]!
    if (b < 0x80) { i++; continue } // ASCII: the common case
    let need: number
    let min: number
    if (b >= 0xc2 && b <= 0xdf) { need = 1; min = 0x80 } else if (b >= 0xe0 && b <= 0xef) { need = 2; min = 0x800 } else if (b >= 0xf0 && b <= 0xf4) { need = 3; min = 0x10000 } else return i
    if (i + need >= n) return i // truncated sequence
    let cp = b & (0x3f >> need)
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k]!
      if ((c & 0xc0) !== 0x80) return i
      cp = (cp << 6) | (c & 0x3f)
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i
    i += need + 1
  }
  return -1
}

/** `bytes` in CP1251 as UTF-8, decoded a megabyte at a time. */
export function cp1251ToUtf8(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const decoder = new TextDecoder('windows-1251')
  const encoder = new TextEncoder()
  const parts: Uint8Array[] = []
  let size = 0
  const step = 1 << 20
  for (let i = 0; i < bytes.length; i += step) {
    const part = encoder.encode(decoder.decode(bytes.subarray(i, i + step), { stream: true }))
    parts.push(part)
    size += part.length
  }
  const out = new Uint8Array(size)
  let at = 0
  for (const p of parts) { out.set(p, at); at += p.length }
  return out
}

/**
 * Why `s` cannot be a field name or value, or `undefined`: a character that is not printable
 * (controls; tab, line feed and carriage return are allowed in values only), or the
 * replacement character, which is what broken encoding leaves behind.
 */
export function textProblem(s: string, isName: boolean): string | undefined {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c < 0x7f) continue // printable ASCII: the common case
    if (c === 0xfffd) return 'contains characters that are not valid in its encoding (the file is not in UTF-8 or CP1251, or its encoding is named wrongly)'
    const control = c < 0x20 || (c >= 0x7f && c <= 0x9f)
    if (control && (isName || (c !== 0x09 && c !== 0x0a && c !== 0x0d))) {
      return `contains a non-printable character (U+${c.toString(16).toUpperCase().padStart(4, '0')}) at position ${i + 1}`
    }
  }
  return undefined
}
