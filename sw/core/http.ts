/**
 * @module core/http
 * Response helpers and request-body parsing shared by every component.
 */
import { malformedJsonBody, validationError } from './error.ts'

/** NGW sends JSON as exactly `application/json`; nextgis_connect needs that (reference §1.1). */
export const JSON_TYPE = 'application/json'

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body ?? null), { status, headers: { 'content-type': JSON_TYPE, ...headers } })
}

/**
 * Reads a request body as JSON whatever its Content-Type (reference §1.1: browsers send
 * `text/plain`). Malformed JSON is a 400; an empty body is `undefined`.
 */
export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text()
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch (err) {
    throw malformedJsonBody(err)
  }
}

/** Reads a JSON object body; anything else is a 422 naming the expected shape. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const body = await readJson(request)
  if (!isObject(body)) throw validationError('Expected `object`, got `' + jsonType(body) + '`', { location: ['body'] })
  return body
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

export function jsonType(v: unknown): string {
  if (v === undefined) return 'nothing'
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float'
  if (typeof v === 'string') return 'str'
  if (typeof v === 'boolean') return 'bool'
  return 'object'
}

/** 16 random hex characters, as NGW's `token_hex(8)`. */
export function requestId(): string {
  const b = crypto.getRandomValues(new Uint8Array(8))
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
}

/** Whether a path belongs to the API; old QGIS plugins send `//api/…`, so leading slashes repeat. */
export function isApiPath(pathname: string): boolean {
  return /^\/+api\//i.test(pathname)
}
