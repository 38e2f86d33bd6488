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
