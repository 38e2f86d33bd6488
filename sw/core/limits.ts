/**
 * @module core/limits
 * The limits every request is held to at the edge, before any work: the size of a body (read
 * through one helper that stops at the limit, whether or not the client declared a length) and
 * the range of numeric ids (SQLite's integers wrap past 2^63 and JavaScript rounds past 2^53,
 * so an id beyond `Number.MAX_SAFE_INTEGER` could name another row).
 */
import { concatBytes } from './bytes.ts'
import { ApiError } from './error.ts'

/** Largest JSON request body, in bytes (docs/security.md). */
export const JSON_BODY_LIMIT = 32 * 1024 * 1024
/** Largest body of a login request (JSON or form), in bytes. */
export const LOGIN_BODY_LIMIT = 64 * 1024
/** Deepest nesting of arrays and objects a JSON body may have. */
export const JSON_DEPTH_LIMIT = 64

/** Whether a path segment of digits is an id that can exist: a safe integer. */
export function isSafeIdText(raw: string): boolean {
  return /^[0-9]{1,16}$/.test(raw) && Number.isSafeInteger(Number(raw))
}

/** A request, or a response of another server (`core/outbound.ts`): what `bodyChunks` reads. */
export interface BodyMessage {
  readonly headers: Headers
  readonly body: ReadableStream<Uint8Array> | null
}

/**
 * The body of `request` chunk by chunk, at most `limit` bytes: a larger declared
 * Content-Length, or more bytes than `limit` arriving, throws `tooLarge()` as soon as it is
 * known. The next chunk is read only when the consumer asks for it, so a slow consumer (a
 * store write) slows the client down instead of filling memory; a consumer that stops early
 * cancels the body. A body that breaks off throws `unreadable(cause)` (a 400 for requests).
 */
export async function* bodyChunks(request: BodyMessage, limit: number, tooLarge: () => ApiError,
  unreadable: (cause: unknown) => ApiError = bodyUnreadable): AsyncGenerator<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw tooLarge()
  if (!request.body) return
  const reader = request.body.getReader()
  let total = 0
  let done = false
  try {
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>
      try {
        step = await reader.read()
      } catch (err) {
        throw unreadable(err)
      }
      if (step.done) { done = true; return }
      total += step.value.length
      if (total > limit) throw tooLarge()
      yield step.value
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined)
  }
}

/** The whole body of `request`, at most `limit` bytes (see `bodyChunks`). */
export async function readBytes(request: Request, limit: number, tooLarge: () => ApiError): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  for await (const c of bodyChunks(request, limit, tooLarge)) chunks.push(c)
  return concatBytes(chunks)
}

/** The client went away or sent a broken body (a truncated chunked encoding). */
export const bodyUnreadable = (cause: unknown) =>
  new ApiError(400, 'Bad request', { message: `The request body could not be read: ${(cause as Error)?.message ?? cause}`,
    exception: 'nextgisweb.pyramid.exception.PyramidHTTPError', cause })
