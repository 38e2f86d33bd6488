/**
 * What the crash tests of both hosts write and how they check it after the restart
 * (`durability.test.ts` on Node, `test/e2e/durability.spec.ts` in the service worker).
 */
import type { Api, Expect } from './harness.ts'

export const FIELDS = ['name', 'depth', 'drilled', 'owner', 'status', 'note'].map((keyname, i) =>
  ({ keyname, datatype: ['STRING', 'REAL', 'DATE', 'STRING', 'INTEGER', 'STRING'][i]! }))

/** One write sent by a crash test; `id` is set when it was acknowledged (201 with an id). */
export interface Sent { name: string; kind: 'group' | 'layer'; id?: number }

/** A group, or a vector layer with six fields (a multi-record write); both with resmeta. */
export function bodyOf(s: Sent, parent: number) {
  const resmeta = { items: { batch: 'crash', name: s.name, kind: s.kind } }
  return s.kind === 'group'
    ? { resource: { cls: 'resource_group', parent: { id: parent }, display_name: s.name }, resmeta }
    : { resource: { cls: 'vector_layer', parent: { id: parent }, display_name: s.name }, resmeta,
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: FIELDS } }
}

/** A resource as read back after the restart is whole: its fields and resmeta are all there. */
export function expectWhole(expect: Expect, got: any, s: Sent): void { // reason: tests index into arbitrary JSON
  expect(got.resource.display_name).toBe(s.name)
  expect(got.resmeta).toEqual({ items: { batch: 'crash', kind: s.kind, name: s.name } })
  if (s.kind === 'layer') {
    expect(got.resource.cls).toBe('vector_layer')
    expect(got.vector_layer).toEqual({ srs: { id: 3857 }, geometry_type: 'POINT' })
    expect(got.feature_layer.fields.map((f: { keyname: string; datatype: string }) => [f.keyname, f.datatype]))
      .toEqual(FIELDS.map((f) => [f.keyname, f.datatype]))
  } else {
    expect(got.resource.cls).toBe('resource_group')
  }
}

/**
 * After the restart: every acknowledged write is there and whole; whatever else is under
 * `parent` was sent (committed just before the crash, unanswered) and is whole too.
 * Returns how many resources are present.
 */
export async function checkAfterRestart(api: Api, expect: Expect, parent: number, all: Sent[]): Promise<number> {
  const acked = all.filter((s) => s.id !== undefined)
  for (const s of acked) {
    const got = await api.request('GET', `/api/resource/${s.id}`)
    expect(got.status, s.name).toBe(200)
    expectWhole(expect, got.body, s)
  }
  const children = (await api.request('GET', `/api/resource/?parent=${parent}`)).body as Array<{ resource: { id: number; display_name: string } }>
  const byName = new Map(all.map((s) => [s.name, s]))
  for (const c of children) {
    const s = byName.get(c.resource.display_name)
    expect(s, c.resource.display_name).toBeDefined()
    if (s!.id !== undefined) expect(c.resource.id).toBe(s!.id)
    expectWhole(expect, (await api.request('GET', `/api/resource/${c.resource.id}`)).body, s!)
  }
  expect(children.length).toBeGreaterThanOrEqual(acked.length)
  expect(children.length).toBeLessThanOrEqual(all.length)
  return children.length
}

// ---- feature writes in a large layer ----

export const LAYER_FIELDS = [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }]
/** Features per seeding PATCH, and per batch a crash test sends. */
export const SEED_BATCH = 10_000
export const CRASH_BATCH = 250

/**
 * A feature write sent by a crash test: an edit of feature `fid` (each feature is edited once),
 * or a batch creating `CRASH_BATCH` features named `<name> #<k>`.
 */
export interface FeatureSent { kind: 'edit' | 'batch'; name: string; fid?: number; acked?: boolean }

/** The `i`-th write of lane `lane` in round `round`: two edits, then a batch. */
export function featureWrite(round: number, lane: number, i: number, firstFid: number): FeatureSent {
  const tag = `r${round} l${lane} n${i}`
  return i % 3 === 2 ? { kind: 'batch', name: `batch ${tag}` }
    : { kind: 'edit', name: `edit ${tag}`, fid: firstFid + (round * 8 + lane) * 1000 + i }
}

/** Points `from`…`from + count` of the seeded layer, named `seed <i>`. */
export function seedBody(from: number, count: number): string {
  return JSON.stringify(Array.from({ length: count }, (_, k) => ({ geom: `POINT(${(from + k) % 1000} ${Math.floor((from + k) / 1000)})`,
    fields: { name: `seed ${from + k}`, n: from + k } })))
}

/** The request a crash test sends for `s`. */
export function featureRequest(s: FeatureSent, layer: number): { method: string; path: string; body: string } {
  if (s.kind === 'edit') {
    return { method: 'PUT', path: `/api/resource/${layer}/feature/${s.fid}`,
      body: JSON.stringify({ geom: `POINT(-${s.fid} -1)`, fields: { name: s.name, n: -s.fid! } }) }
  }
  return { method: 'PATCH', path: `/api/resource/${layer}/feature/`, body: JSON.stringify(Array.from({ length: CRASH_BATCH },
    (_, k) => ({ geom: `POINT(${k} -2)`, fields: { name: `${s.name} #${k}`, n: k } }))) }
}

/**
 * After the restart, over every feature of the layer (`GET …/feature/?geom=no`): each
 * acknowledged edit is there, each edit is whole (its name and number agree) or not done;
 * each batch is all there or not at all, acknowledged ones all there; nothing else changed.
 * Returns how many edits and batches are present.
 */
export function checkFeatures(expect: Expect, features: { id: number; fields: { name: string; n: number } }[], seeded: number,
  firstFid: number, sent: FeatureSent[]): { edits: number; batches: number } {
  const byId = new Map(features.map((f) => [f.id, f.fields]))
  let edits = 0
  let batches = 0
  for (const s of sent) {
    if (s.kind === 'edit') {
      const got = byId.get(s.fid!)
      expect(got, s.name).toBeDefined()
      const done = got!.name === s.name
      if (done) { expect(got!.n, s.name).toBe(-s.fid!); edits++ }
      else {
        expect(s.acked, `${s.name} was acknowledged but is not there`).not.toBe(true)
        expect(got, s.name).toEqual({ name: `seed ${s.fid! - firstFid}`, n: s.fid! - firstFid })
      }
    }
  }
  const batchCount = new Map<string, number>()
  for (const f of features) {
    const m = / #\d+$/.exec(f.fields.name)
    if (m && f.fields.name.startsWith('batch ')) {
      const key = f.fields.name.slice(0, m.index)
      batchCount.set(key, (batchCount.get(key) ?? 0) + 1)
    }
  }
  let batchFeatures = 0
  for (const s of sent) {
    if (s.kind !== 'batch') continue
    const n = batchCount.get(s.name) ?? 0
    expect([0, CRASH_BATCH], `batch ${s.name} is half-done or ran twice`).toContain(n)
    if (s.acked) expect(n, `${s.name} was acknowledged but is not there`).toBeGreaterThanOrEqual(CRASH_BATCH)
    if (n) batches++
    batchFeatures += n
    batchCount.delete(s.name)
  }
  expect([...batchCount.keys()], 'features of batches never sent').toEqual([])
  expect(features.length).toBe(seeded + batchFeatures)
  return { edits, batches }
}
