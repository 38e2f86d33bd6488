/**
 * The QMS test data set (../shared/data/qms/, GPL: read in place, never copied into the
 * project) and the import body built from it. Runs in Node: the cases execute in the test
 * process even when the requests go to the browser's service worker.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Api } from '../harness.ts'

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

/** `$OUTPOST_SHARED/data/qms`, else `<repo>/../shared/data/qms`, else `/work/shared/data/qms`. */
export function qmsDir(): string {
  const candidates = [process.env.OUTPOST_SHARED, join(REPO, '..', 'shared'), '/work/shared']
    .filter((d): d is string => !!d).map((d) => join(d, 'data', 'qms'))
  const found = candidates.find((d) => existsSync(join(d, 'geoservices.json')))
  if (!found) throw new Error(`The QMS data set was not found in ${candidates.join(', ')}; set OUTPOST_SHARED.`)
  return found
}

const readJson = (name: string) => JSON.parse(readFileSync(join(qmsDir(), name), 'utf8'))

export interface QmsData {
  geoservices: Array<Record<string, any>> // reason: records are compared field by field
  icons: Array<{ id: number; guid: string; name: string }>
  statuses: Array<Record<string, any>>
}

let cached: QmsData | undefined
export function qmsData(): QmsData {
  cached ??= { geoservices: readJson('geoservices.json'), icons: readJson('icons.json'), statuses: readJson('geoservice_status.synthetic.json') }
  return cached
}

export function qmsIconPng(id: number | 'default'): Uint8Array {
  return new Uint8Array(readFileSync(join(qmsDir(), 'icons', `${id}.png`)))
}

/** The body of `POST /api/component/outpost/catalogue/import` for the whole data set. */
export function qmsImportBody(): Record<string, unknown> {
  const d = qmsData()
  return {
    geoservices: d.geoservices,
    icons: d.icons.map((i) => ({ ...i, content: Buffer.from(qmsIconPng(i.id)).toString('base64') })),
    geoservice_status: d.statuses,
    default_icon: Buffer.from(qmsIconPng('default')).toString('base64'),
  }
}

let bodyText: string | undefined

/** Imports the QMS data unless the server already serves exactly it (a cheap fingerprint check). */
export async function ensureQms(api: Api): Promise<void> {
  const probe = await api.request('GET', '/api/v1/geoservices/?limit=1&ordering=-id', { auth: 'guest' })
  const d = qmsData()
  const maxId = Math.max(...d.geoservices.map((s) => s.id as number))
  if (probe.body?.count === d.geoservices.length && probe.body.results[0]?.id === maxId) {
    const st = await api.request('GET', '/api/v1/geoservice_status/?limit=1', { auth: 'guest' })
    if (st.body?.count === d.statuses.length) return
  }
  bodyText ??= JSON.stringify(qmsImportBody())
  const res = await api.request('POST', '/api/component/outpost/catalogue/import', { raw: bodyText })
  if (res.status !== 200) throw new Error(`QMS import failed: ${res.status} ${res.text.slice(0, 500)}`)
}

/** The expected list item of a record: the list serializer's keys, in order. */
export const LIST_KEYS = ['id', 'guid', 'name', 'desc', 'type', 'epsg', 'icon', 'submitter', 'created_at', 'updated_at', 'cumulative_status', 'extent']

/** The newest status record of each service (README of the data set). */
export function newestStatus(): Map<number, Record<string, any>> {
  const m = new Map<number, Record<string, any>>()
  for (const s of qmsData().statuses) {
    const cur = m.get(s.geoservice)
    if (!cur || s.check_at > cur.check_at) m.set(s.geoservice, s)
  }
  return m
}
