/**
 * What a fuzz run needs around the generator: the objects its requests should reach, and
 * the tree's invariants checked at the end. Runs through any `Api`, so both hosts share it.
 */
import type { Api } from '../api/harness.ts'
import { base64 } from '../api/harness.ts'
import { EVIL_TEXT, EXTERNAL_SERVICE_ERROR, type FuzzRequest, type Known } from './generator.ts'

const FIELDS = [['s', 'STRING'], ['i', 'INTEGER'], ['b', 'BOOLEAN'], ['big', 'BIGINT'], ['r', 'REAL'], ['d', 'DATE'], ['ok', 'BOOLEAN']]

async function ok(api: Api, method: string, path: string, body: unknown): Promise<any> { // reason: JSON of several shapes
  const res = await api.request(method, path, { body })
  if (res.status >= 300) throw new Error(`fuzz setup: ${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`)
  return res.body
}

export async function createKnown(api: Api): Promise<Known> {
  const group = (await ok(api, 'POST', '/api/resource/', { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: `Fuzz ${Date.now()}` } })).id
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
  return { group, layer, fid, aid, upload, style }
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

/** Whether an answer of ≥ 500 is a failure: only a remote's 502 ExternalServiceError, for a request to a hostile remote, is not. */
export function isServerFailure(req: FuzzRequest, status: number, body: unknown): boolean {
  return status >= 500 && !(req.remote && status === 502 && (body as { exception?: string } | undefined)?.exception === EXTERNAL_SERVICE_ERROR)
}

/** `known` while its attachment (so its feature, layer and group) still exists, else new ones (the remotes are kept). */
export async function keepKnown(api: Api, known: Known): Promise<Known> {
  const res = await api.request('GET', `/api/resource/${known.layer}/feature/${known.fid}/attachment/${known.aid}`)
  const up = await api.request('GET', `/api/component/file_upload/${known.upload}`)
  const style = await api.request('GET', `/api/resource/${known.style}`)
  return res.status === 200 && up.status === 200 && style.status === 200 ? known : { ...await createKnown(api), remotes: known.remotes }
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
