/**
 * @module core/http
 * Response helpers and request-body parsing shared by every component.
 */
import { malformedJsonBody, payloadTooLarge, validationError } from './error.ts'
import { nestsDeeperThan } from './json-depth.ts'
import { JSON_BODY_LIMIT, JSON_DEPTH_LIMIT, readBytes } from './limits.ts'

/** NGW sends JSON as exactly `application/json`; nextgis_connect needs that (reference §1.1). */
export const JSON_TYPE = 'application/json'

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return jsonText(JSON.stringify(body ?? null), status, headers)
}

/** A JSON answer whose text (or its UTF-8 bytes) is made already (a listing that SQLite serialized). */
export function jsonText(text: string | Uint8Array<ArrayBuffer>, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { 'content-type': JSON_TYPE, ...headers } })
}

/**
 * Reads a request body as JSON whatever its Content-Type (reference §1.1: browsers send
 * `text/plain`). Over `limit` bytes is a 413 (the read stops there); malformed JSON or UTF-8
 * is a 400; nesting deeper than `JSON_DEPTH_LIMIT` a 422; an empty body is `undefined`.
 * Callers check permissions first: the body is the last thing read.
 */
export async function readJson(request: Request, limit = JSON_BODY_LIMIT): Promise<unknown> {
  const bytes = await readBytes(request, limit, () => payloadTooLarge(limit))
  let value: unknown
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    if (text.trim() === '') return undefined
    value = JSON.parse(text)
  } catch (err) {
    throw malformedJsonBody(err)
  }
  if (nestsDeeperThan(value, JSON_DEPTH_LIMIT)) {
    throw validationError(`The JSON body nests deeper than ${JSON_DEPTH_LIMIT} levels.`, { location: ['body'] })
  }
  return value
}

/** Reads a JSON object body; anything else is a 422 naming the expected shape. */
export async function readJsonObject(request: Request, limit = JSON_BODY_LIMIT): Promise<Record<string, unknown>> {
  const body = await readJson(request, limit)
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
