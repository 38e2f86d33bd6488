/**
 * @module wasm/gdal-xhr
 * An asynchronous `XMLHttpRequest` built on `fetch`, for service workers, which have no XHR.
 * Emscripten's file packager downloads `gdal3WebAssembly.data` with XHR; this is just enough
 * of XHR for that (GET, `responseType` 'arraybuffer', load/error/progress callbacks).
 * Synchronous requests cannot be emulated with fetch, so they throw.
 */

type Handler = ((ev: Event) => void) | null

/** Workers have no `ProgressEvent`: an Event carrying its fields does for Emscripten. */
function progressEvent(type: string, loaded: number, total: number): Event {
  return Object.assign(new Event(type), { loaded, total, lengthComputable: total > 0 })
}

export class FetchXhr {
  /** What requests go through; `installFetchXhr` binds the host's. */
  protected fetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init)

  static readonly UNSENT = 0
  static readonly OPENED = 1
  static readonly HEADERS_RECEIVED = 2
  static readonly LOADING = 3
  static readonly DONE = 4

  readyState = 0
  status = 0
  statusText = ''
  responseType: XMLHttpRequestResponseType = ''
  response: unknown = null
  responseText = ''
  responseURL = ''
  withCredentials = false
  timeout = 0
  onload: Handler = null
  onerror: Handler = null
  onprogress: Handler = null
  onabort: Handler = null
  onloadend: Handler = null
  onreadystatechange: Handler = null
  #method = 'GET'
  #url = ''
  #headers = new Headers()
  #responseHeaders = new Headers()
  #abort = new AbortController()
  #listeners = new Map<string, Array<(ev: Event) => void>>()

  open(method: string, url: string | URL, async = true): void {
    if (!async) throw new Error('Synchronous XMLHttpRequest is not available in a service worker.')
    this.#method = method
    this.#url = String(url)
    this.readyState = 1
    this.#fire('readystatechange', new Event('readystatechange'))
  }

  setRequestHeader(name: string, value: string): void { this.#headers.set(name, value) }
  getResponseHeader(name: string): string | null { return this.#responseHeaders.get(name) }
  getAllResponseHeaders(): string {
    let out = ''
    this.#responseHeaders.forEach((v, k) => { out += `${k}: ${v}\r\n` })
    return out
  }
  overrideMimeType(): void {}
  abort(): void { this.#abort.abort() }

  addEventListener(type: string, fn: (ev: Event) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), fn])
  }
  removeEventListener(type: string, fn: (ev: Event) => void): void {
    this.#listeners.set(type, (this.#listeners.get(type) ?? []).filter((f) => f !== fn))
  }

  send(body?: BodyInit | null): void {
    void this.#run(body ?? undefined)
  }

  async #run(body?: BodyInit): Promise<void> {
    try {
      const res = await this.fetch(this.#url, { method: this.#method, headers: this.#headers, body, signal: this.#abort.signal,
        credentials: this.withCredentials ? 'include' : 'same-origin' })
      this.status = res.status
      this.statusText = res.statusText
      this.responseURL = res.url
      this.#responseHeaders = res.headers
      this.readyState = 2
      this.#fire('readystatechange', new Event('readystatechange'))
      const total = Number(res.headers.get('content-length') ?? 0)
      const buf = await readAll(res, (loaded) => {
        this.readyState = 3
        this.#fire('progress', progressEvent('progress', loaded, total))
      })
      if (this.responseType === 'arraybuffer') this.response = buf.buffer
      else if (this.responseType === 'blob') this.response = new Blob([buf])
      else {
        this.responseText = new TextDecoder().decode(buf)
        this.response = this.responseType === 'json' ? JSON.parse(this.responseText) : this.responseText
      }
      this.readyState = 4
      this.#fire('readystatechange', new Event('readystatechange'))
      this.#fire('load', progressEvent('load', buf.length, buf.length))
    } catch {
      this.readyState = 4
      const type = this.#abort.signal.aborted ? 'abort' : 'error'
      this.#fire(type, progressEvent(type, 0, 0))
    }
    this.#fire('loadend', progressEvent('loadend', 0, 0))
  }

  #fire(type: string, ev: Event): void {
    const prop = (this as unknown as Record<string, Handler>)[`on${type}`]
    if (typeof prop === 'function') prop.call(this, ev)
    for (const fn of this.#listeners.get(type) ?? []) fn.call(this, ev)
  }
}

/** Reads the body, reporting progress; one copy into an exactly sized buffer when possible. */
async function readAll(res: Response, progress: (loaded: number) => void): Promise<Uint8Array<ArrayBuffer>> {
  if (!res.body) return new Uint8Array(await res.arrayBuffer())
  const parts: Uint8Array[] = []
  let loaded = 0
  const reader = res.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parts.push(value)
    loaded += value.length
    progress(loaded)
  }
  const out = new Uint8Array(loaded)
  let at = 0
  for (const p of parts) { out.set(p, at); at += p.length }
  return out
}

/**
 * Installs the stand-in as the global `XMLHttpRequest` when the scope has none; its requests
 * go through `fetch` (the host's engine fetch, which answers from its caches offline).
 */
export function installFetchXhr(fetch: typeof globalThis.fetch, scope: { XMLHttpRequest?: unknown } = globalThis as never): void {
  if (typeof scope.XMLHttpRequest !== 'undefined') return
  scope.XMLHttpRequest = class extends FetchXhr {
    protected override fetch = fetch
  }
}
