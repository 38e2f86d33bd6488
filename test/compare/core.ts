/**
 * The engine of `npm run compare` (scripts/compare.ts): the same scenario run against the
 * original NextGIS Web and against Outpost, each answer reduced to a shape (ids, timestamps and
 * other run-dependent values normalised away), and the shapes diffed step by step.
 */
import type { Server } from 'node:http'
import type { Api, ApiResponse, RequestOptions } from '../api/harness.ts'
import { httpApi, startNodeApi } from '../api/node-client.ts'

/** One request's outcome as compared: its status and a shape of its body. */
export interface Step { label: string; status: number; shape: unknown }

/** A scenario runs its requests against one server (under its own group `parent`) and records the steps. */
export type Scenario = { name: string; run(s: Side): Promise<void> }

export class Side {
  readonly steps: Step[] = []
  constructor(readonly api: Api, readonly parent: number, readonly tag: string) {}

  /** Sends a request (JSON bodies with their Content-Type, as NextGIS clients send them) and records it. */
  async send(label: string, method: string, path: string, opts: RequestOptions = {}, shapeOf = jsonShape): Promise<ApiResponse> {
    const headers = opts.body !== undefined ? { 'content-type': 'application/json', ...opts.headers } : opts.headers
    const res = await this.api.request(method, path, { ...opts, headers })
    this.steps.push({ label, status: res.status, shape: shapeOf(res) })
    return res
  }

  /** A request whose answer is needed but not compared. */
  async quiet(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const headers = opts.body !== undefined ? { 'content-type': 'application/json', ...opts.headers } : opts.headers
    return this.api.request(method, path, { ...opts, headers })
  }

  /** Creates a resource (not compared) and answers its id; anything but a 201 stops the scenario. */
  async create(cls: string, parent: number, members: Record<string, unknown> = {}): Promise<number> {
    const res = await this.quiet('POST', '/api/resource/', { body: { resource: { cls, parent: { id: parent }, display_name: this.name(cls) }, ...members } })
    if (res.status !== 201) throw new Error(`creating a ${cls} answered ${res.status}: ${res.text.slice(0, 300)}`)
    return res.body.id as number
  }

  name(what: string): string { return `${what} ${this.tag}-${++Side.serial}` }
  static serial = 0

  /** A vector layer in this side's group: POINT, EPSG:3857, fields r REAL, t DATETIME, s STRING. */
  async layer(label: string | undefined, versioned: boolean): Promise<number> {
    const body = { resource: { cls: 'vector_layer', parent: { id: this.parent }, display_name: this.name('layer') },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'r', datatype: 'REAL' },
        { keyname: 't', datatype: 'DATETIME' }, { keyname: 's', datatype: 'STRING' }] },
      feature_layer: { versioning: { enabled: versioned } } }
    const res = label ? await this.send(label, 'POST', '/api/resource/', { body }) : await this.quiet('POST', '/api/resource/', { body })
    if (res.status !== 201) throw new Error(`creating a layer answered ${res.status}: ${res.text.slice(0, 300)}`)
    return res.body.id as number
  }
}

/** Keys whose values are compared as values; digits masked (ids in messages). */
const LITERAL = new Set(['title', 'message', 'detail', 'exception', 'status_code', 'contact', 'type', 'action', 'cls',
  'datatype', 'geometry_type', 'keyname', 'status', 'attribute', 'serializer', 'scope', 'permission'])
/** Keys that differ on every run or every server and say nothing of the API. */
const DROPPED = new Set(['request_id', 'guru_meditation'])

export function shape(v: unknown, key?: string): unknown {
  if (v === null || v === undefined) return v ?? null
  if (Array.isArray(v)) return v.slice(0, 12).map((x) => shape(x))
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) if (!DROPPED.has(k)) out[k] = shape(x, k)
    return out
  }
  if (key !== undefined && LITERAL.has(key)) return typeof v === 'string' ? v.replace(/\d+/g, 'N') : v
  return typeof v
}

export const jsonShape = (res: ApiResponse) => (res.body === undefined ? (res.text ? `<${res.headers['content-type']}>` : '<empty>') : shape(res.body))

/** The differences between two shapes, as `path: ours ≠ original` lines. */
export function diff(a: unknown, b: unknown, path = '$', out: string[] = []): string[] {
  if (out.length > 8) return out
  const kind = (x: unknown) => (Array.isArray(x) ? 'array' : x === null ? 'null' : typeof x)
  if (kind(a) !== kind(b)) {
    out.push(`${path}: ${JSON.stringify(a)?.slice(0, 90)} ≠ ${JSON.stringify(b)?.slice(0, 90)}`)
  } else if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path}: ${a.length} items ≠ ${b.length}`)
    for (let i = 0; i < Math.min(a.length, b.length); i++) diff(a[i], b[i], `${path}[${i}]`, out)
  } else if (kind(a) === 'object') {
    const ao = a as Record<string, unknown>, bo = b as Record<string, unknown>
    for (const k of Object.keys(ao)) if (!(k in bo)) out.push(`${path}.${k}: only ours (${JSON.stringify(ao[k])?.slice(0, 60)})`)
    for (const k of Object.keys(bo)) if (!(k in ao)) out.push(`${path}.${k}: only the original's (${JSON.stringify(bo[k])?.slice(0, 60)})`)
    for (const k of Object.keys(ao)) if (k in bo) diff(ao[k], bo[k], `${path}.${k}`, out)
  } else if (a !== b) {
    out.push(`${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`)
  }
  return out
}

/** An answer in a few words: its exception class, or that it is not an error. */
export const kindOf = (shape: unknown) => {
  const e = (shape as { exception?: string } | null)?.exception
  return e ? e.split('.').pop() : 'not an error'
}

async function reachable(api: Api): Promise<string | undefined> {
  try {
    const res = await api.request('GET', '/api/component/pyramid/pkg_version', { auth: 'guest' })
    return res.status === 200 ? undefined : `answered ${res.status}`
  } catch (err) {
    return String((err as Error).cause ?? err)
  }
}

/** A group of its own on each server for one run; deleted afterwards. */
async function groupOn(api: Api, tag: string): Promise<number> {
  const res = await api.request('POST', '/api/resource/', { headers: { 'content-type': 'application/json' },
    body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: `compare ${tag}` } } })
  if (res.status !== 201) throw new Error(`creating the run's group answered ${res.status}: ${res.text.slice(0, 300)}`)
  return res.body.id as number
}

/**
 * Runs `scenarios` on both servers and prints, per scenario, the steps whose answers differ.
 * `ourUrl` absent: the Node host is started in memory in this process.
 */
export async function compareServers(scenarios: Scenario[], originalUrl: string, ourUrl?: string): Promise<void> {
  const original = httpApi(originalUrl.replace(/\/$/, ''), process.env.ORIGINAL_PASSWORD ?? 'admin')
  const why = await reachable(original)
  if (why) {
    console.log(`The original at ${originalUrl} is unreachable (${why}): nothing compared.`)
    return
  }
  let server: Server | undefined
  let ours: Api
  if (ourUrl) ours = httpApi(ourUrl.replace(/\/$/, ''), process.env.OUR_PASSWORD)
  else ({ api: ours, server } = await startNodeApi())
  const tag = `${Date.now().toString(36)}`
  const groups = [await groupOn(ours, tag), await groupOn(original, tag)]
  const counts = { same: 0, differs: 0, failed: 0 }
  try {
    for (const sc of scenarios) {
      const sides = [new Side(ours, groups[0]!, tag), new Side(original, groups[1]!, tag)] as const
      try {
        for (const side of sides) await sc.run(side)
      } catch (err) {
        counts.failed++
        console.log(`\n✗ ${sc.name}: could not run (${(err as Error).message})`)
        continue
      }
      const lines: string[] = []
      sides[0].steps.forEach((a, i) => {
        const b = sides[1].steps[i]
        if (!b) { lines.push(`  ${a.label}: only ours ran it`); return }
        // Different statuses: the bodies are different kinds of answer, their classes say enough.
        if (a.status !== b.status) lines.push(`  ${a.label}: status ${a.status} ≠ ${b.status} (${kindOf(a.shape)} ≠ ${kindOf(b.shape)})`)
        else for (const d of diff(a.shape, b.shape)) lines.push(`  ${a.label}: ${d}`)
      })
      if (lines.length) counts.differs++
      else counts.same++
      console.log(`\n${lines.length ? '≠' : '='} ${sc.name}: ${lines.length ? 'differs (ours ≠ original)' : 'same'} (${sides[0].steps.length} requests)`)
      for (const l of lines) console.log(l)
    }
  } finally {
    await ours.request('DELETE', `/api/resource/${groups[0]}`)
    await original.request('DELETE', `/api/resource/${groups[1]}`)
    server?.close()
  }
  console.log(`\n${counts.same} scenarios the same, ${counts.differs} differ, ${counts.failed} could not run.`)
}

