/**
 * @module feature/versioning/cursor
 * The opaque cursor of the changes feed: the field ids and extensions asked for at `check`,
 * and the last feature id a page covered, as base64url JSON (the original's is msgpack; a
 * cursor is only ever given back to the server that made it).
 */
import { fromBase64, toBase64 } from '../../core/bytes.ts'
import { invalidParameter } from '../../core/error.ts'
import { isObject } from '../../core/http.ts'

export const EXTENSIONS = ['attachment', 'description'] as const

export interface ChangesCursor {
  fields: number[]
  extensions: string[]
  fidLast: number | null
}

export function encodeCursor(c: ChangesCursor): string {
  const bytes = new TextEncoder().encode(JSON.stringify([c.fields, c.extensions, c.fidLast]))
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

export function decodeCursor(text: string): ChangesCursor {
  try {
    const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4)
    const v = JSON.parse(new TextDecoder().decode(fromBase64(b64))) as unknown
    if (Array.isArray(v) && v.length === 3 && Array.isArray(v[0]) && Array.isArray(v[1])
      && (v[2] === null || Number.isInteger(v[2])) && !isObject(v)) {
      const extensions = (v[1] as unknown[]).filter((e): e is string => (EXTENSIONS as readonly unknown[]).includes(e))
      return { fields: (v[0] as unknown[]).map(Number), extensions, fidLast: v[2] as number | null }
    }
  } catch { /* a 422 below */ }
  throw invalidParameter('cursor', 'Invalid cursor.')
}
