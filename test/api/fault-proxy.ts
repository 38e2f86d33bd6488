/**
 * An HTTP proxy in front of a team's server that cuts chosen requests at a chosen moment:
 * before forwarding them (the request never arrives), or after the server answered (the
 * answer never comes back); the network then stays down for a moment (the client's retry,
 * and a browser's own, fail too). A cut can run an action first — stop the worker, SIGKILL the
 * local host — so a push or pull is interrupted at an exact step, the same way for the Node
 * host and for the service worker. Answers can also be rewritten, to play a server that writes
 * its JSON otherwise (the original's bare big integers). Every request is logged.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'

export type CutWhen = 'before' | 'after'

interface Rule {
  match: (method: string, path: string) => boolean
  when: CutWhen
  action?: () => unknown | Promise<unknown>
}

interface Rewrite {
  match: (method: string, path: string) => boolean
  fn: (body: string) => string
}

/**
 * JSON text with every string that is an integer past 2^53 written as a bare number, digits
 * kept: how the original's changes feed and feature reads send a BIGINT field's value (our own
 * host sends those as strings).
 */
export function bareBigints(text: string): string {
  return text.replace(/"(-?\d{16,})"/g, (all, digits: string) =>
    (BigInt(digits) > BigInt(Number.MAX_SAFE_INTEGER) || BigInt(digits) < BigInt(Number.MIN_SAFE_INTEGER) ? digits : all))
}

/** How long the network stays down after a cut: the client's retry (and a browser's own) fail too. */
const DOWN_MS = 1500

export class FaultProxy {
  readonly log: { method: string; path: string; status?: number }[] = []
  #rules: Rule[] = []
  #rewrites: Rewrite[] = []
  #downUntil = 0
  /** Cuts made so far. */
  cuts = 0
  #server: Server | undefined
  base = ''

  constructor(readonly target: string) {}

  async start(): Promise<this> {
    this.#server = createServer((req, res) => { void this.#handle(req, res) })
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve))
    const addr = this.#server.address()
    this.base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
    return this
  }

  /** Cuts the next request that `match`es, once. */
  cut(match: (method: string, path: string) => boolean, when: CutWhen, action?: Rule['action']): void {
    this.#rules.push({ match, when, action })
  }

  /** Rewrites the body of every answer to a request that `match`es, until the returned function is called. */
  rewrite(match: Rewrite['match'], fn: Rewrite['fn']): () => void {
    const r = { match, fn }
    this.#rewrites.push(r)
    return () => { this.#rewrites = this.#rewrites.filter((x) => x !== r) }
  }

  /** Waits until the network is back after a cut. */
  async settled(): Promise<void> {
    const wait = this.#downUntil - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 50))
  }

  /** Requests sent so far that match. */
  count(match: (method: string, path: string) => boolean): number {
    return this.log.filter((e) => match(e.method, e.path)).length
  }

  close(): Promise<void> {
    return new Promise((resolve) => { this.#server?.closeAllConnections(); this.#server?.close(() => resolve()) })
  }

  async #handle(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const method = req.method ?? 'GET', path = req.url ?? '/'
    const entry: { method: string; path: string; status?: number } = { method, path }
    this.log.push(entry)
    if (Date.now() < this.#downUntil) {
      res.socket?.destroy()
      return
    }
    const rule = this.#rules.find((r) => r.match(method, path))
    if (rule) this.#rules.splice(this.#rules.indexOf(rule), 1)
    const drop = async () => { this.cuts++; this.#downUntil = Date.now() + DOWN_MS; await rule!.action?.(); res.socket?.destroy() }
    if (rule?.when === 'before') return drop()
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v
    let answer: Response
    try {
      answer = await fetch(this.target + path, { method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined })
    } catch {
      res.socket?.destroy()
      return
    }
    const rewrite = this.#rewrites.find((r) => r.match(method, path))
    const raw = Buffer.from(await answer.arrayBuffer())
    const body = rewrite ? Buffer.from(rewrite.fn(raw.toString('utf8'))) : raw
    entry.status = answer.status
    if (rule?.when === 'after') return drop()
    const out: Record<string, string> = {}
    answer.headers.forEach((v, k) => { if (k !== 'content-encoding' && k !== 'transfer-encoding' && k !== 'content-length') out[k] = v })
    res.writeHead(answer.status, out)
    res.end(body)
  }
}
