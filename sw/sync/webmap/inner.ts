/**
 * @module sync/webmap/inner
 * Requests of a job to this server's own API, as the person who started it: their credentials
 * (session cookie or Basic) go with each, so every create, copy and delete passes the same
 * permission checks, validation and all-or-nothing writes as when the app sends it itself.
 */
import { ApiError } from '../../core/error.ts'
import { PROGRESS_HEADER } from '../../ingest/progress.ts'

/** The app's own `fetch` (app.ts hands it to the route). */
export type AppFetch = (request: Request) => Promise<Response>

/** Headers that say who sends the request; nothing else of the original request goes along. */
const WHO = ['authorization', 'cookie', 'x-outpost-cookie']

export class InnerApi {
  readonly #headers: Record<string, string> = {}

  constructor(readonly fetch: AppFetch, readonly original: Request) {
    for (const h of WHO) {
      const v = original.headers.get(h)
      if (v !== null) this.#headers[h] = v
    }
  }

  /** `method path` with a JSON body; answers the parsed body, or throws the answer's error as this request's. */
  async json(method: string, path: string, body?: unknown, opts: { progress?: string; raw?: Uint8Array; type?: string } = {}): Promise<any> { // reason: our own API's JSON, shaped by its routes
    const headers: Record<string, string> = { ...this.#headers, accept: 'application/json' }
    if (opts.progress) headers[PROGRESS_HEADER] = opts.progress
    let payload: BodyInit | undefined
    if (opts.raw) {
      payload = opts.raw as Uint8Array<ArrayBuffer>
      headers['content-type'] = opts.type ?? 'application/octet-stream'
    } else if (body !== undefined) {
      payload = JSON.stringify(body)
      headers['content-type'] = 'application/json'
    }
    const res = await this.fetch(new Request(new URL(path, this.original.url), { method, headers, body: payload }))
    const text = await res.text()
    const parsed = text ? JSON.parse(text) : undefined
    if (!res.ok) throw errorOf(res.status, parsed)
    return parsed
  }

  /** The bytes answered to `GET path` (a style's QML), or the answer's error as this request's. */
  async bytes(path: string): Promise<Uint8Array> {
    const res = await this.fetch(new Request(new URL(path, this.original.url), { headers: this.#headers }))
    if (!res.ok) throw errorOf(res.status, await res.json().catch(() => undefined))
    return new Uint8Array(await res.arrayBuffer())
  }
}

/** An error answer of our own API as an ApiError again, with its body's fields. */
function errorOf(status: number, body: any): ApiError { // reason: an error body of our own API
  return new ApiError(status, String(body?.title ?? 'Error'), { message: body?.message, detail: body?.detail,
    exception: body?.exception, data: body?.data ?? {} })
}
