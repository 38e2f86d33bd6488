/**
 * @module upload/tus
 * The parts of TUS 1.0.0 the original speaks (extensions `creation` and `termination`,
 * reference §7): its headers, their parsing, and the empty responses it answers with.
 */
import { base64ToUtf8 } from '../core/bytes.ts'
import { badRequest, tusVersionUnsupported } from './errors.ts'

export const TUS_VERSION = '1.0.0'
export const TUS_EXTENSIONS = 'creation,termination'
export const TUS_CONTENT_TYPE = 'application/offset+octet-stream'

/**
 * Headers a CORS layer must allow on the TUS routes (reference §1.5). Outpost has no CORS
 * layer yet (the service worker serves its own origin only); this is for when it gets one.
 */
export const TUS_CORS = {
  requestHeaders: ['Upload-Offset', 'Upload-Length', 'Upload-Defer-Length', 'Upload-Metadata', 'Tus-Resumable'],
  exposeHeaders: ['Location'],
} as const

/**
 * Whether the request speaks TUS: `false` without `Tus-Resumable` (unless `required`),
 * `true` for 1.0.0, and a 412 for any other version, as the original.
 */
export function isTusRequest(headers: Headers, required = false): boolean {
  const v = headers.get('tus-resumable')
  if (v === null && !required) return false
  if (v === TUS_VERSION) return true
  throw tusVersionUnsupported()
}

/** A non-negative integer header; a missing or malformed one is a 400. */
export function intHeader(headers: Headers, name: string): number {
  const v = headers.get(name)
  if (v === null || !/^[0-9]{1,16}$/.test(v.trim())) {
    throw badRequest(v === null ? `The ${name} header is required.` : `The ${name} header must be a non-negative integer.`)
  }
  return Number(v.trim())
}

/**
 * `Upload-Metadata`: comma-separated `key base64value` pairs; a key may stand alone. The
 * original reads `name` and `mime_type`. Malformed base64 is a 400 (the original: 500).
 */
export function parseUploadMetadata(value: string | null): Record<string, string> {
  const out: Record<string, string> = {}
  if (value === null || value.trim() === '') return out
  for (const pair of value.split(',')) {
    const [key, b64, ...rest] = pair.trim().split(' ')
    if (!key || rest.length) throw badRequest('The Upload-Metadata header is malformed.')
    try {
      out[key] = b64 ? base64ToUtf8(b64) : ''
    } catch {
      throw badRequest(`The Upload-Metadata value of '${key}' is not base64-encoded UTF-8.`)
    }
  }
  return out
}

/** An empty TUS response: `Tus-Resumable` plus `extra` headers, no body, no Content-Type. */
export function tusResponse(status: number, extra: Record<string, string> = {}): Response {
  return new Response(null, { status, headers: { 'Tus-Resumable': TUS_VERSION, ...extra } })
}
