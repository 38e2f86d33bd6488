/**
 * `npm run compare -- <original url> [our url]`: sends the same requests to the original
 * NextGIS Web and to Outpost and prints, per scenario, whether the answers match: statuses,
 * and the JSON shapes with ids, timestamps and other run-dependent values normalised away
 * (titles, exception classes, messages with their digits masked, `type`/`action`/`cls` and
 * exported field types are compared as values). Without `our url` it starts the Node host in
 * memory in this process. Passwords: ORIGINAL_PASSWORD (default `admin`), OUR_PASSWORD (for
 * a given `our url`). Not part of `npm test` (CI cannot start the original); it exits 0 when it
 * ran, whatever it found. What it found is written down in docs/sync.md.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'node:http'
import type { Api, ApiResponse, RequestOptions } from '../test/api/harness.ts'
import { httpApi, startNodeApi } from '../test/api/node-client.ts'
import { pointWkb } from '../test/api/cases/versioning.ts'

/** One request's outcome as compared: its status and a shape of its body. */
interface Step { label: string; status: number; shape: unknown }

/** A scenario runs its requests against one server (under its own group `parent`) and records the steps. */
type Scenario = { name: string; run(s: Side): Promise<void> }

class Side {
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

function shape(v: unknown, key?: string): unknown {
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

const jsonShape = (res: ApiResponse) => (res.body === undefined ? (res.text ? `<${res.headers['content-type']}>` : '<empty>') : shape(res.body))

/** The differences between two shapes, as `path: ours ≠ original` lines. */
function diff(a: unknown, b: unknown, path = '$', out: string[] = []): string[] {
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
const kindOf = (shape: unknown) => {
  const e = (shape as { exception?: string } | null)?.exception
  return e ? e.split('.').pop() : 'not an error'
}

/** What GDAL reads from a GeoPackage: the field types and the first feature's values (`ogrinfo -al`). */
function gpkgShape(res: ApiResponse): unknown {
  if (res.status !== 200 || !res.bodyBase64) return jsonShape(res)
  const dir = mkdtempSync(join(tmpdir(), 'outpost-compare-'))
  try {
    const file = join(dir, 'export.gpkg')
    writeFileSync(file, Buffer.from(res.bodyBase64, 'base64'))
    const text = execFileSync('ogrinfo', ['-q', '-al', file], { encoding: 'utf8' })
    const fields: Record<string, string> = {}
    const values: Record<string, string> = {}
    for (const m of text.matchAll(/^ {2}(\w+) \((\w+)\) = (.*)$/gm)) {
      fields[m[1]!] = m[2]!
      values[m[1]!] = m[1] === 'ngw_id' ? 'N' : m[3]!
    }
    return { fields, values }
  } catch (err) {
    return `<ogrinfo failed: ${(err as Error).message.split('\n')[0]}>`
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A CSV's header and first row as text (coordinates masked). */
const csvShape = (res: ApiResponse) => (res.status !== 200 ? jsonShape(res)
  : res.text.replace(/^\uFEFF/, '').split(/\r?\n/).slice(0, 2).map((l) => l.replace(/-?\d+\.\d+/g, 'X')))

/** GeoJSON with its features' properties compared as values. */
function geojsonShape(res: ApiResponse): unknown {
  if (res.status !== 200 || res.body === undefined) return jsonShape(res)
  const doc = res.body as { features: { properties: unknown }[]; crs?: unknown }
  return { ...(shape(doc) as object), crs: doc.crs ?? null, properties: doc.features.map((f) => f.properties) }
}

const FEATURE = { geom: 'POINT (1 2)', fields: { r: null, t: '2024-01-02T03:04:05', s: 'a' } }

const SCENARIOS: Scenario[] = [
  { name: 'pkg_version and the route map', async run(s) {
    await s.send('pkg_version', 'GET', '/api/component/pyramid/pkg_version')
    const route = await s.quiet('GET', '/api/component/pyramid/route')
    const names = ['resource.item', 'resource.collection', 'feature_layer.feature.item', 'feature_layer.feature.collection',
      'feature_layer.changes_check', 'feature_layer.transaction.collection', 'feature_layer.version.collection']
    s.steps.push({ label: 'route names', status: route.status, shape: names.map((n) => [n, route.body?.[n] ?? null]) })
  } },
  { name: 'resource CRUD', async run(s) {
    const made = await s.send('create group', 'POST', '/api/resource/', { body: { resource: { cls: 'resource_group',
      parent: { id: s.parent }, display_name: s.name('crud') } } })
    const id = made.body?.id
    await s.send('read', 'GET', `/api/resource/${id}`)
    await s.send('rename', 'PUT', `/api/resource/${id}`, { body: { resource: { display_name: s.name('crud renamed') } } })
    await s.send('children', 'GET', `/api/resource/?parent=${s.parent}`)
    await s.send('delete', 'DELETE', `/api/resource/${id}`)
    await s.send('read deleted', 'GET', `/api/resource/${id}`)
  } },
  { name: 'vector layer and features', async run(s) {
    const layer = await s.layer('create layer', false)
    const read = await s.quiet('GET', `/api/resource/${layer}`)
    s.steps.push({ label: 'layer interfaces', status: read.status, shape: read.body?.resource?.interfaces })
    await s.send('layer members', 'GET', `/api/resource/${layer}`)
    const fid = (await s.send('create feature', 'POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: FEATURE })).body?.id
    await s.send('list', 'GET', `/api/resource/${layer}/feature/?dt_format=iso`)
    await s.send('item', 'GET', `/api/resource/${layer}/feature/${fid}?dt_format=iso`)
    await s.send('update', 'PUT', `/api/resource/${layer}/feature/${fid}`, { body: { fields: { s: 'b' } } })
    await s.send('count', 'GET', `/api/resource/${layer}/feature_count`)
    await s.send('missing feature', 'GET', `/api/resource/${layer}/feature/999999`)
  } },
  { name: 'batch PATCH (versioned and not)', async run(s) {
    for (const versioned of [true, false]) {
      const layer = await s.layer(undefined, versioned)
      const a = (await s.quiet('POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: FEATURE })).body?.id
      const b = (await s.quiet('POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: FEATURE })).body?.id
      const v = versioned ? 'versioned' : 'unversioned'
      await s.send(`${v}: create, update, delete`, 'PATCH', `/api/resource/${layer}/feature/`, { body: [
        { geom: 'POINT (3 4)' }, { id: a, fields: { s: 'c' } }, { id: b, delete: true }] })
      await s.send(`${v}: item that changes nothing`, 'PATCH', `/api/resource/${layer}/feature/`, { body: [{ id: a }] })
      await s.send(`${v}: delete`, 'DELETE', `/api/resource/${layer}/feature/${a}`)
    }
  } },
  { name: 'versions', async run(s) {
    const layer = await s.layer(undefined, true)
    await s.quiet('POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: FEATURE })
    const epoch = (await s.quiet('GET', `/api/resource/${layer}`)).body?.feature_layer?.versioning?.epoch
    const fl = await s.quiet('GET', `/api/resource/${layer}`)
    s.steps.push({ label: 'feature_layer.versioning', status: fl.status, shape: shape(fl.body?.feature_layer?.versioning) })
    await s.send('version list', 'GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=asc`)
    await s.send('version list grouped', 'GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=asc&group=true`)
    await s.send('version 1', 'GET', `/api/resource/${layer}/feature/version/1`)
    await s.send('version out of range', 'GET', `/api/resource/${layer}/feature/version/99`)
    await s.send('epoch mismatch', 'GET', `/api/resource/${layer}/feature/version/?epoch=${epoch + 100}&order=asc`)
  } },
  { name: 'changes feed', async run(s) {
    const layer = await s.layer(undefined, true)
    await s.quiet('PATCH', `/api/resource/${layer}/feature/?dt_format=iso`, { body: [FEATURE, FEATURE] })
    const epoch = (await s.quiet('GET', `/api/resource/${layer}`)).body?.feature_layer?.versioning?.epoch
    const check = await s.send('check', 'GET', `/api/resource/${layer}/feature/changes/check?epoch=${epoch}&initial=0`)
    let url = check.body?.fetch as string | undefined
    for (let page = 0; url && page < 5; page++) {
      const res = await s.send(`fetch page ${page}`, 'GET', url.replace(/^https?:\/\/[^/]+/, ''))
      const last = Array.isArray(res.body) ? res.body[res.body.length - 1] : undefined
      url = last?.action === 'continue' ? last.url : undefined
    }
    const latest = (await s.quiet('GET', `/api/resource/${layer}`)).body?.feature_layer?.versioning?.latest
    await s.send('check when current', 'GET', `/api/resource/${layer}/feature/changes/check?epoch=${epoch}&initial=${latest}`)
    await s.send('epoch required', 'GET', `/api/resource/${layer}/feature/changes/check?initial=1`)
    await s.send('out of range', 'GET', `/api/resource/${layer}/feature/changes/check?epoch=${epoch}&initial=99`)
    await s.send('invalid range', 'GET', `/api/resource/${layer}/feature/changes/check?epoch=${epoch}&initial=2&target=1`)
  } },
  { name: 'transactions', async run(s) {
    const layer = await s.layer(undefined, true)
    const res = (await s.quiet('GET', `/api/resource/${layer}`)).body
    const epoch = res?.feature_layer?.versioning?.epoch
    const fieldId = res?.feature_layer?.fields?.find((f: { keyname: string }) => f.keyname === 's')?.id
    const col = `/api/resource/${layer}/feature/transaction/`
    await s.send('start without epoch', 'POST', col, { body: {} })
    const tid = (await s.send('start', 'POST', col, { body: { epoch } })).body?.id
    await s.send('put', 'PUT', `${col}${tid}`, { body: [[1, { action: 'feature.create', geom: pointWkb(1, 2), fields: [[fieldId, 'x']] }]] })
    await s.send('results before commit', 'GET', `${col}${tid}`)
    await s.send('commit', 'POST', `${col}${tid}`)
    await s.send('results', 'GET', `${col}${tid}`)
    await s.send('unknown transaction', 'GET', `${col}999999`)
  } },
  { name: 'errors', async run(s) {
    await s.send('wrong password', 'GET', '/api/component/auth/current_user', { auth: { login: 'administrator', password: 'wrong-password' } })
    await s.send('bad auth header', 'GET', '/api/resource/0', { auth: 'guest', headers: { authorization: 'Basic !!!' } })
    await s.send('login, wrong password', 'POST', '/api/component/auth/login', { auth: 'guest', body: { login: 'administrator', password: 'nope' } })
    await s.send('guest where a user is required', 'GET', '/api/component/auth/current_user?require_authenticated=true', { auth: 'guest' })
    await s.send('guest profile', 'GET', '/api/component/auth/profile', { auth: 'guest' })
    await s.send('guest create', 'POST', '/api/resource/', { auth: 'guest', body: { resource: { cls: 'resource_group',
      parent: { id: s.parent }, display_name: s.name('guest') } } })
    const body = { resource: { cls: 'resource_group', parent: { id: s.parent }, display_name: s.name('twice') } }
    await s.quiet('POST', '/api/resource/', { body })
    await s.send('duplicate display name', 'POST', '/api/resource/', { body })
    await s.send('root delete', 'DELETE', '/api/resource/0')
    await s.send('root delete as guest', 'DELETE', '/api/resource/0', { auth: 'guest' })
    await s.send('resource not found', 'GET', '/api/resource/99999999')
    await s.send('malformed JSON', 'POST', '/api/resource/', { raw: '{"not json', headers: { 'content-type': 'application/json' } })
    await s.send('unknown class', 'POST', '/api/resource/', { body: { resource: { cls: 'no_such_class', parent: { id: s.parent }, display_name: s.name('x') } } })
    await s.send('guest reads the root', 'GET', '/api/resource/0', { auth: 'guest' })
  } },
  { name: 'exports', async run(s) {
    const layer = await s.layer(undefined, false)
    await s.quiet('POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: FEATURE })
    const q = (f: string) => `/api/resource/${layer}/export?format=${f}&srs=4326&zipped=false`
    await s.send('GeoJSON', 'GET', q('GeoJSON'), {}, geojsonShape)
    await s.send('GPKG (fid=ngw_id), read by ogrinfo', 'GET', `${q('GPKG')}&fid=ngw_id`, {}, gpkgShape)
    await s.send('CSV', 'GET', q('CSV'), {}, csvShape)
  } },
]

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

async function main(): Promise<void> {
  const [originalUrl, ourUrl] = process.argv.slice(2)
  if (!originalUrl) {
    console.log('Usage: npm run compare -- <original url> [our url]')
    return
  }
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
    for (const sc of SCENARIOS) {
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

main().then(() => process.exit(0), (err) => {
  console.log(`compare stopped: ${(err as Error).stack ?? err}`)
  process.exit(0)
})
