/**
 * @module core/idempotency
 * Writes with an `Idempotency-Key` header (IETF httpapi draft) run once: the write records its
 * answer in its own transaction (store/request-log.ts), and the same key again gets that answer
 * without writing. Feature writes and resource creation take keys; the app sends a new key
 * with every write. This is what makes Chromium's replay harmless: a fetch event whose worker
 * was stopped before it answered is handed to the next worker, body and all
 * (docs/architecture.md, "Durability tests").
 */
import { ApiError } from './error.ts'

/** A keyed write's answer as recorded: what identified the request, and the answer's JSON. */
export interface PastRequest {
  fingerprint: string
  body: string
}

/** The header a replayed answer carries (Stripe's name for it). */
export const REPLAYED_HEADER = { 'idempotent-replayed': 'true' }

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

/** A write with this key found already running in its own transaction (the draft's 409). */
export const keyInUse = (key: string) => new ApiError(409, 'Idempotency-Key in use', {
  message: `A request with Idempotency-Key '${key}' was made at the same time; its answer is recorded once it has finished.`,
  data: { location: ['header', 'Idempotency-Key'] } })

/** The recorded answer of a replayed request; a key reused for another request is a 422. */
export function replayed(past: PastRequest, req: KeyedRequest): unknown {
  if (past.fingerprint !== req.fingerprint) {
    throw refused(`Idempotency-Key '${req.key}' was already used for another request (${past.fingerprint}).`)
  }
  return JSON.parse(past.body)
}
