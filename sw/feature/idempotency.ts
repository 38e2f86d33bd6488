/**
 * @module feature/idempotency
 * Feature writes with an `Idempotency-Key` header (IETF httpapi draft) run once: the layer
 * records the answer in the write's own transaction, and the same key again gets that answer
 * without writing. The app sends a new key with every write. This is what makes Chromium's
 * replay harmless: a fetch event whose worker was stopped before it answered is handed to
 * the next worker, body and all (docs/architecture.md, "Durability tests").
 */
import { ApiError } from '../core/error.ts'
import type { PastRequest } from './types.ts'

/** A keyed request: its key and what identifies it (method, path and query). */
export interface KeyedRequest {
  key: string
  fingerprint: string
}

const KEY = /^[\x21-\x7e]{1,255}$/

const refused = (message: string) => new ApiError(422, 'Invalid Idempotency-Key', { message,
  data: { location: ['header', 'Idempotency-Key'] }, exception: 'nextgisweb.core.exception.ValidationError' })

/**
 * The request's key, or `undefined` without the header. The key is 1–255 visible ASCII
 * characters, bare or as a quoted string (the draft's form: `"8e03978e-…"`).
 */
export function keyedRequest(req: Request): KeyedRequest | undefined {
  const raw = req.headers.get('idempotency-key')
  if (raw === null) return undefined
  const key = /^".*"$/.test(raw) ? raw.slice(1, -1) : raw
  if (!KEY.test(key)) throw refused('Idempotency-Key must be 1 to 255 visible ASCII characters.')
  const url = new URL(req.url)
  return { key, fingerprint: `${req.method} ${url.pathname}${url.search}` }
}

/** The recorded answer of a replayed request; a key reused for another request is a 422. */
export function replayed(past: PastRequest, req: KeyedRequest): unknown {
  if (past.fingerprint !== req.fingerprint) {
    throw refused(`Idempotency-Key '${req.key}' was already used for another request (${past.fingerprint}).`)
  }
  return JSON.parse(past.body)
}
