/**
 * What a fuzz run needs around the generator: the objects its requests should reach, and
 * the tree's invariants checked at the end. Runs through any `Api`, so both hosts share it.
 */
import type { Api, ApiResponse } from '../api/harness.ts'
import { base64 } from '../api/harness.ts'
import { EVIL_TEXT, EXTERNAL_DATABASE_ERROR, EXTERNAL_SERVICE_ERROR, SECRET, type FuzzRequest, type Known } from './generator.ts'

const FIELDS = [['s', 'STRING'], ['i', 'INTEGER'], ['b', 'BOOLEAN'], ['big', 'BIGINT'], ['r', 'REAL'], ['d', 'DATE'], ['ok', 'BOOLEAN']]

async function ok(api: Api, method: string, path: string, body: unknown): Promise<any> { // reason: JSON of several shapes
  const res = await api.request(method, path, { body })
  if (res.status >= 300) throw new Error(`fuzz setup: ${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`)
  return res.body
}

/** Rules letting `reader` read a resource and everything below it, data included. */
const readerRules = (reader: Known['reader']) => !reader ? [] : ['resource', 'data'].map((scope) =>
  ({ action: 'allow', principal: { id: reader.id }, identity: '', scope, permission: 'read', propagate: true }))

export async function createKnown(api: Api, reader?: Known['reader']): Promise<Known> {
  const group = (await ok(api, 'POST', '/api/resource/', { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: `Fuzz ${Date.now()}`,
    permissions: readerRules(reader) } })).id
  const layer = (await ok(api, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: group }, display_name: 'Fuzz layer' },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: FIELDS.map(([keyname, datatype]) => ({ keyname, datatype })) } })).id
  const fid = (await ok(api, 'POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(1 2)', fields: { s: 'a', i: 1, ok: true } })).id
  // A value that evil patterns backtrack on, for the styles and filters the run sends.
  await ok(api, 'POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(3 4)', fields: { s: EVIL_TEXT } })
  const style = (await ok(api, 'POST', '/api/resource/', { resource: { cls: 'engine_style', parent: { id: layer }, display_name: 'Fuzz style' },
    engine_style: { xml: '<map><layer><classitem>s</classitem><class><expression>/^a/</expression><style><color red="1" green="2" blue="3"/></style></class></layer></map>' } })).id
  const up = await api.request('PUT', '/api/component/file_upload/', { bytesBase64: base64('fuzz'), headers: { 'content-type': 'text/plain' } })
  const upload = up.body.id as string
  const aid = (await ok(api, 'POST', `/api/resource/${layer}/feature/${fid}/attachment/`, { file_upload: { id: upload } })).id
  return { group, layer, fid, aid, upload, style, reader }
}

/** The ordinary user of a run (issue 21): signed in, reading only the known group (see `createKnown`). */
export async function createReader(api: Api): Promise<NonNullable<Known['reader']>> {
  const login = `fuzz_reader_${Date.now()}`, password = 'fuzz-reader-password'
  return { id: (await ok(api, 'POST', '/api/component/auth/user/', { keyname: login, display_name: login, password })).id, login, password }
}

/** A group and a layer with one feature that only the administrator may read, all carrying `SECRET`. */
export async function createSecret(api: Api): Promise<NonNullable<Known['secret']>> {
  const group = (await ok(api, 'POST', '/api/resource/', { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: `Fuzz ${SECRET} ${Date.now()}` } })).id
  const layer = (await ok(api, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: group }, display_name: `Layer ${SECRET}`,
    description: SECRET }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 's', datatype: 'STRING' }] } })).id
  const fid = (await ok(api, 'POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(1 2)', fields: { s: SECRET } })).id
  return { group, layer, fid }
}

/**
 * What a refused request must leave as it was, read as the administrator: the tree (every
 * resource, with its rules) and the features of the known and the secret layer.
 */
export async function stateOf(api: Api, known: Known): Promise<string> {
  // An error body carries a request id of its own: only its status counts (a layer already deleted).
  const text = async (path: string) => { const res = await api.request('GET', path); return res.status === 200 ? res.text : String(res.status) }
  const parts = [await text('/api/resource/search/')]
  for (const id of [known.layer, known.secret?.layer]) if (id !== undefined) parts.push(await text(`/api/resource/${id}/feature/`))
  return parts.join('\n')
}

/**
 * Whether an answer to someone who may not read the secret layer shows any of it. Before it
 * counts as a leak, the administrator confirms that this user (or the guest) may still not read
 * it: a fuzzed rule could have shared it.
 */
export async function leaks(api: Api, known: Known, req: FuzzRequest, text: string): Promise<boolean> {
  if (req.as === 'admin' || !known.secret || !text.includes(SECRET)) return false
  const user = req.as === 'reader' ? known.reader!.id
    : (await api.request('GET', '/api/component/auth/user/?brief=true')).body.find((p: { keyname: string }) => p.keyname === 'guest').id
  const may = await api.request('GET', `/api/resource/${known.secret.layer}/permission?user=${user}`)
  return may.status !== 200 || !may.body.resource.read
}

/** Remote connections (no login) to each of `urls`: the hostile servers a run's requests reach. */
export async function createRemotes(api: Api, urls: string[]): Promise<number[]> {
  const ids: number[] = []
  for (const url of urls) {
    ids.push((await ok(api, 'POST', '/api/resource/', { resource: { cls: 'remote_connection', parent: { id: 0 },
      display_name: `Fuzz remote ${ids.length} ${Date.now()}` }, remote_connection: { url } })).id)
  }
  return ids
}

/**
 * Whether an answer of ≥ 500 is a failure: only a remote's 502 ExternalServiceError, for a
 * request to a hostile remote, and a PostGIS database's 503 ExternalDatabaseError, for a request
 * that reaches one, are not.
 */
export function isServerFailure(req: FuzzRequest, status: number, body: unknown): boolean {
  const exception = (body as { exception?: string } | undefined)?.exception
  return status >= 500 && !(req.remote && status === 502 && exception === EXTERNAL_SERVICE_ERROR)
    && !(req.database && status === 503 && exception === EXTERNAL_DATABASE_ERROR)
}

/**
 * A PostGIS connection to the database of `params` and a layer over its table `table` (columns
 * `name`, `n`, `geom` points in EPSG:3857) with one feature: what `Known.spatialdb` names.
 */
export async function createSpatialDb(api: Api, params: Record<string, unknown>, table: string): Promise<NonNullable<Known['spatialdb']>> {
  const connection = (await ok(api, 'POST', '/api/resource/', { resource: { cls: 'spatialdb_connection', parent: { id: 0 },
    display_name: `Fuzz PostGIS ${Date.now()}` }, spatialdb_connection: params })).id
  const layer = (await ok(api, 'POST', '/api/resource/', { resource: { cls: 'spatialdb_layer', parent: { id: 0 }, display_name: `Fuzz PostGIS layer ${Date.now()}` },
    spatialdb_layer: { connection: { id: connection }, table, column_id: 'id', column_geom: 'geom', srs: { id: 3857 }, fields: 'update' } })).id
  const fid = (await ok(api, 'POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(1 2)', fields: { name: 'a', n: 1 } })).id
  return { connection, layer, fid, table, params }
}

/** `sdb` with its connection's parameters set back (fuzzed changes point it elsewhere), made again when a request deleted it. */
async function keepSpatialDb(api: Api, sdb: NonNullable<Known['spatialdb']>): Promise<NonNullable<Known['spatialdb']>> {
  const reset = await api.request('PUT', `/api/resource/${sdb.connection}`, { body: { spatialdb_connection: sdb.params } })
  const layer = reset.status === 200 && await api.request('PUT', `/api/resource/${sdb.layer}`, { body: { spatialdb_layer: {
    connection: { id: sdb.connection }, schema: 'public', table: sdb.table, column_id: 'id', column_geom: 'geom', srs: { id: 3857 }, fields: 'update' } } })
  if (!layer || layer.status !== 200) return createSpatialDb(api, sdb.params, sdb.table)
  const feature = await api.request('GET', `/api/resource/${sdb.layer}/feature/${sdb.fid}`)
  if (feature.status === 200) return sdb
  return { ...sdb, fid: (await ok(api, 'POST', `/api/resource/${sdb.layer}/feature/`, { geom: 'POINT(1 2)', fields: { name: 'a', n: 1 } })).id }
}

/** `known` while its attachment (so its feature, layer and group) still exists, else new ones (the remotes are kept). */
export async function keepKnown(api: Api, known: Known): Promise<Known> {
  const res = await api.request('GET', `/api/resource/${known.layer}/feature/${known.fid}/attachment/${known.aid}`)
  const up = await api.request('GET', `/api/component/file_upload/${known.upload}`)
  const style = await api.request('GET', `/api/resource/${known.style}`)
  const secret = known.secret && (await api.request('GET', `/api/resource/${known.secret.layer}/feature/${known.secret.fid}`)).status !== 200
    ? await createSecret(api) : known.secret
  const spatialdb = known.spatialdb && await keepSpatialDb(api, known.spatialdb)
  return res.status === 200 && up.status === 200 && style.status === 200 ? { ...known, secret, spatialdb }
    : { ...await createKnown(api, known.reader), remotes: known.remotes, secret, spatialdb }
}

/** Problems with the tree, read through the API: the root missing or moved, a cycle, an orphan. */
export async function treeProblems(api: Api): Promise<string[]> {
  const res = await api.request('GET', '/api/resource/search/')
  if (res.status !== 200) return [`search answered ${res.status}`]
  const parent = new Map<number, number | null>()
  for (const r of res.body as Array<{ resource: { id: number; parent: { id: number } | null } }>) parent.set(r.resource.id, r.resource.parent?.id ?? null)
  const problems: string[] = []
  if (!parent.has(0)) problems.push('the root is gone')
  else if (parent.get(0) !== null) problems.push(`the root has parent ${parent.get(0)}`)
  for (const id of parent.keys()) {
    const seen = new Set<number>()
    for (let at: number | null | undefined = id; at !== 0; at = parent.get(at)) {
      if (at === null || at === undefined) { problems.push(`resource ${id} does not reach the root`); break }
      if (seen.has(at)) { problems.push(`resource ${id} is in a cycle`); break }
      seen.add(at)
    }
  }
  return problems
}

/**
 * Sends a generated request and says what is wrong with the answer: a 5xx (`isServerFailure`),
 * a write refused to someone other than the administrator (401/403) that changed the tree or
 * the features anyway, or the secret layer shown to someone who may not read it.
 */
export async function sendJudged(api: Api, known: Known, req: FuzzRequest): Promise<{ res: ApiResponse; problems: string[] }> {
  const judged = req.as !== 'admin' && !['GET', 'HEAD', 'OPTIONS'].includes(req.method)
  const before = judged ? await stateOf(api, known) : ''
  const res = await api.request(req.method, req.path, req.opts)
  const problems: string[] = []
  if (isServerFailure(req, res.status, res.body)) problems.push(`${res.status} ${res.text.slice(0, 300)}`)
  const after = judged && (res.status === 401 || res.status === 403) ? await stateOf(api, known) : before
  if (after !== before) {
    const at = [...before].findIndex((ch, j) => ch !== after[j])
    problems.push(`${res.status} as ${req.as}, but the tree or features changed: …${before.slice(at - 150, at + 150)}… became …${after.slice(at - 150, at + 150)}…`)
  }
  if (await leaks(api, known, req, res.text)) problems.push(`${res.status} as ${req.as} shows the secret layer: ${res.text.slice(0, 300)}`)
  return { res, problems }
}
