/**
 * The replica's contract (sync/types.ts `Replica`, port/features.ts `FeatureTables.replica`):
 * what the sync bookkeeping of a linked layer answers, whatever engine keeps it. Run by
 * test/unit/features-port.test.ts against SQLite's feature tables and PostgreSQL's PostGIS ones.
 * `make` gives the replica of a fresh, empty, versioned layer (fields `name` STRING and `n`
 * INTEGER) whose clock stands at `NOW`. The sync cases (test/api/sync-cases.ts) cover the
 * rounds; these pin the bookkeeping's own answers: local changes from versions, mappings,
 * conflicts, problems, the link's state, all in the layer's transactions.
 */
import { describe, expect, it } from 'vitest'
import type { FeatureInput, FieldValue } from '../../sw/feature/types.ts'
import type { Geometry } from '../../sw/geo/geometry.ts'
import { bboxOf } from '../../sw/geo/geometry.ts'
import type { LinkState, Mapping, Replica, SyncReport } from '../../sw/sync/types.ts'

/** The replica's clock: conflicts and problems are stamped with it, to the second. */
export const NOW = new Date('2024-05-06T07:08:09.123Z')
const STAMP = '2024-05-06T07:08:09'

const point = (x: number, y: number): Geometry => ({ type: 'Point', coordinates: [x, y] })

export function replicaContract(name: string, make: () => Promise<Replica>): void {
  describe(`replica: ${name}`, () => {
    const input = (r: Replica, x: number, name: FieldValue, n: FieldValue = null, description?: string | null): FeatureInput => {
      const fields = [r.meta.fields.find((f) => f.keyname === 'name')!, r.meta.fields.find((f) => f.keyname === 'n')!]
      const geom = point(x, x)
      return { geom, bbox: bboxOf(geom), fields, values: [name, n], ...(description !== undefined ? { description } : {}) }
    }
    const state = (remoteVersion: number): LinkState => ({ fieldMap: { 1: 11, 2: 12 }, remoteVersioned: true, remoteEpoch: 3, remoteVersion,
      pull: null, push: { tid: 5, ops: [{ seqnum: 1, payload: '{"action":"feature.create"}', kind: 'create', fid: 1, vid: 2 }] }, lastSync: null })
    const report = (i: number): SyncReport => ({ status: 'ok', pushed: { created: i, updated: 0, deleted: 0, attachments: 0 },
      pulled: { created: 0, updated: 0, deleted: 0, attachments: 0 }, conflicts: 0, problems: [], started: `s${i}`, finished: `f${i}` })

    it('starts empty; the link state is kept as written, the history newest first and at most 20; a failed write keeps nothing', async () => {
      const r = await make()
      expect(await r.read(async (_tx, b) => [await b.state(), await b.history(), await b.mappings(), await b.attachmentMappings(),
        await b.conflicts(), await b.problems(), await b.localChanges(), await b.localAttachmentChanges()]))
        .toEqual([undefined, [], [], [], [], [], [], []])
      await r.write((_tx, b) => b.setState(state(7)))
      for (let i = 1; i <= 22; i++) await r.write((_tx, b) => b.addHistory(report(i)))
      const [got, history] = await r.read(async (_tx, b) => [await b.state(), await b.history()] as const)
      // Byte for byte: the pending push a retry finishes from, keys in their order.
      expect(JSON.stringify(got)).toBe(JSON.stringify(state(7)))
      expect(history.map((h) => h.started)).toEqual(Array.from({ length: 20 }, (_, i) => `s${22 - i}`))
      await expect(r.write(async (tx, b) => {
        await tx.create(input(r, 1, 'lost'))
        await b.setState(state(8))
        throw new Error('cut')
      })).rejects.toThrow('cut')
      expect(await r.read(async (tx, b) => [await tx.count(), (await b.state())?.remoteVersion])).toEqual([0, 7])
    })

    it('local changes follow versions: created, updated, described, deleted, each against its mapping', async () => {
      const r = await make()
      const [a, b, c] = await r.write((tx) => tx.createMany([input(r, 1, 'a'), input(r, 2, 'b'), input(r, 3, 'c')])) as [number, number, number]
      const created = await r.read((_tx, x) => x.localChanges())
      expect(created.map((ch) => [ch.fid, ch.kind, ch.mapping])).toEqual([[a, 'create', undefined], [b, 'create', undefined], [c, 'create', undefined]])
      const v1 = created[0]!.vid
      expect(created.every((ch) => ch.vid === v1)).toBe(true)
      // Pushed: each is its remote one, matched at the version sent.
      await r.write(async (_tx, x) => {
        await x.map(a, 101, 9, { vid: v1 })
        await x.map(b, 102, 9, undefined, 'hash-b')
        await x.mapMany([{ fid: c, rfid: 103, rvid: null, rhash: null }])
      })
      expect(await r.read((_tx, x) => x.localChanges())).toEqual([])
      expect(await r.read((_tx, x) => x.mappings())).toEqual([
        { fid: a, rfid: 101, rvid: 9, base: v1, dbase: 0, rhash: null },
        { fid: b, rfid: 102, rvid: 9, base: v1, dbase: 0, rhash: 'hash-b' },
        { fid: c, rfid: 103, rvid: null, base: v1, dbase: 0, rhash: null }])
      await r.write(async (tx) => {
        await tx.update(a, input(r, 5, 'a2'))
        await tx.update(b, { ...input(r, 2, 'b'), fields: [], values: [], geom: undefined, description: 'about b' })
        await tx.delete(c)
      })
      const changes = await r.read((_tx, x) => x.localChanges())
      expect(changes.map((ch) => [ch.fid, ch.kind, ch.vid > v1, ch.mapping?.rfid])).toEqual([
        [a, 'update', true, 101], [b, 'description', true, 102], [c, 'delete', true, 103]])
      const records = await r.read((_tx, x) => x.localsOf([103, 999, 101]))
      expect([...records.keys()]).toEqual([103, 101])
      expect(records.get(103)).toMatchObject({ deleted: true, conflicted: false, mapping: { fid: c } })
      expect(records.get(101)).toMatchObject({ deleted: false, dvid: 0, vid: changes[0]!.vid })
      // Our own change came back: only the lock moves, the hash stays unless a new one is given.
      await r.write(async (_tx, x) => { await x.relock(b, 12); await x.relock(a, 13, 'hash-a') })
      expect((await r.read((_tx, x) => x.mapping(b)))).toMatchObject({ rvid: 12, rhash: 'hash-b' })
      expect((await r.read((_tx, x) => x.localOf(101)))).toMatchObject({ fid: a, rvid: 13, rhash: 'hash-a' })
      // A remote id mapped again to another feature leaves the first; unmapped features are new again.
      await r.write(async (_tx, x) => { await x.map(a, 102, 14); await x.unmap(c) })
      expect((await r.read((_tx, x) => x.mappings())).map((m) => [m.fid, m.rfid])).toEqual([[a, 102]])
      expect(await r.read((_tx, x) => x.descriptionVid(b))).toBe(changes[1]!.vid)
      expect(await r.read((_tx, x) => x.descriptionVid(a))).toBe(0)
      // Many at once (a pulled page's new features): at their current versions, taking the remote id from another feature.
      await r.write((_tx, x) => x.mapMany([{ fid: b, rfid: 102, rvid: 15, rhash: 'h' }, { fid: c, rfid: 104, rvid: 16, rhash: null }]))
      expect(await r.read((_tx, x) => x.mappings())).toEqual([
        { fid: b, rfid: 102, rvid: 15, base: v1, dbase: changes[1]!.vid, rhash: 'h' },
        { fid: c, rfid: 104, rvid: 16, base: changes[2]!.vid, dbase: 0, rhash: null }])
    })

    it('in bulk as one by one: mappings of many fids, many mapped at the versions sent, relocked, unmapped with their attachments', async () => {
      const r = await make()
      const [a, b, c] = await r.write((tx) => tx.createMany([input(r, 1, 'a'), input(r, 2, 'b'), input(r, 3, 'c', null, 'about c')])) as [number, number, number]
      const created = await r.read((_tx, x) => x.localChanges())
      const v1 = created[0]!.vid
      // Each change carries its description's version: the push asks nothing per feature.
      expect(created.map((ch) => [ch.fid, ch.kind, ch.dvid])).toEqual([[a, 'create', 0], [b, 'create', 0], [c, 'create', v1]])
      await r.write((_tx, x) => x.mapMany([{ fid: a, rfid: 101, rvid: 5, rhash: null, at: { vid: v1, dvid: 0 } },
        { fid: b, rfid: 102, rvid: null, rhash: 'hb', at: { vid: v1 + 70 } }, { fid: c, rfid: 103, rvid: 6, rhash: null }]))
      const mb = { fid: b, rfid: 102, rvid: null, base: v1 + 70, dbase: 0, rhash: 'hb' }
      expect(await r.read((_tx, x) => x.mappingsOf([c, 999, a, b]))).toEqual(new Map<number, Mapping>([
        [c, { fid: c, rfid: 103, rvid: 6, base: v1, dbase: v1, rhash: null }], [a, { fid: a, rfid: 101, rvid: 5, base: v1, dbase: 0, rhash: null }],
        [b, mb]]))
      expect(await r.read((_tx, x) => x.mappingsOf([]))).toEqual(new Map())
      // b matched at a version it is not at: waiting, with its description's version.
      expect((await r.read((_tx, x) => x.localChanges())).map((ch) => [ch.fid, ch.kind, ch.vid, ch.dvid])).toEqual([[b, 'update', v1, 0]])
      await r.write((_tx, x) => x.relockMany([{ fid: a, rvid: 8, rhash: 'ha' }, { fid: b, rvid: 9, rhash: null }, { fid: 999, rvid: 1, rhash: null }]))
      expect(await r.read((_tx, x) => x.mappings())).toEqual([
        { fid: a, rfid: 101, rvid: 8, base: v1, dbase: 0, rhash: 'ha' }, { ...mb, rvid: 9 },
        { fid: c, rfid: 103, rvid: 6, base: v1, dbase: v1, rhash: null }])
      // A remote id taken by another feature in the same call leaves its first feature, as `map` does.
      await r.write((_tx, x) => x.mapMany([{ fid: a, rfid: 103, rvid: 10, rhash: null }]))
      expect((await r.read((_tx, x) => x.mappings())).map((m) => [m.fid, m.rfid, m.rhash])).toEqual([[a, 103, 'ha'], [b, 102, 'hb']])
      const aid = await r.write(async (tx, x) => {
        const id = await tx.addAttachment(b, { name: 'p.txt', mime_type: 'text/plain' }, { blobId: 'bp', size: 3, fileMeta: {} })
        await x.mapAttachment(id, 501, b, 61)
        return id
      })
      expect((await r.read((_tx, x) => x.attachmentMappings())).map((m) => m.aid)).toEqual([aid])
      await r.write(async (_tx, x) => { await x.unmapMany([b, 999]); await x.unmapMany([]); await x.relockMany([]); await x.mapMany([]) })
      expect([await r.read((_tx, x) => x.mappings()), await r.read((_tx, x) => x.attachmentMappings())])
        .toEqual([[{ fid: a, rfid: 103, rvid: 10, base: v1, dbase: 0, rhash: 'ha' }], []])
    })

    it('conflicts and problems hold their features back from the push, with their times and states as stored', async () => {
      const r = await make()
      const [a, b, c] = await r.write((tx) => tx.createMany([input(r, 1, 'a'), input(r, 2, 'b'), input(r, 3, 'c')])) as [number, number, number]
      const local = { geom: 'AQEAAAA=', fields: { name: 'a', n: null, day: '2024-01-02' }, description: null }
      const remote = { geom: null, fields: { n: 1, name: 'z' } }
      await r.write(async (_tx, x) => {
        await x.addConflict({ fid: a, rfid: 201, kind: 'update/update', local, remote, rvid: 4 })
        await x.addConflict({ fid: b, rfid: 202, kind: 'delete/update', local: null, remote, rvid: null })
        await x.setProblem({ rfid: 300, fid: c, reason: 'first' })
        await x.setProblem({ rfid: 301, fid: null, reason: 'new there' })
      })
      const conflicts = await r.read((_tx, x) => x.conflicts())
      expect(conflicts.map(({ id: _, ...rest }) => rest)).toEqual([
        { fid: a, rfid: 201, kind: 'update/update', local, remote, rvid: 4, created: STAMP },
        { fid: b, rfid: 202, kind: 'delete/update', local: null, remote, rvid: null, created: STAMP }])
      expect(JSON.stringify(conflicts[0]!.local)).toBe(JSON.stringify(local))
      expect(conflicts[1]!.id).toBeGreaterThan(conflicts[0]!.id)
      expect(await r.read((_tx, x) => x.conflict(conflicts[1]!.id))).toEqual(conflicts[1])
      expect(await r.read((_tx, x) => x.conflict(conflicts[1]!.id + 100))).toBeUndefined()
      expect(await r.read((_tx, x) => x.localChanges())).toEqual([])
      await r.write((_tx, x) => x.map(c, 203, 1))
      expect((await r.read((_tx, x) => x.localsOf([203]))).get(203)!.conflicted).toBe(false)
      // A problem noted again keeps the time it was first seen.
      await r.write((_tx, x) => x.setProblem({ rfid: 300, fid: c, reason: 'again' }))
      expect(await r.read((_tx, x) => x.problems())).toEqual([
        { rfid: 300, fid: c, reason: 'again', since: STAMP }, { rfid: 301, fid: null, reason: 'new there', since: STAMP }])
      await r.write(async (_tx, x) => { await x.removeConflict(conflicts[0]!.id); await x.clearProblem(300) })
      expect((await r.read((_tx, x) => x.localChanges())).map((ch) => [ch.fid, ch.kind])).toEqual([[a, 'create']])
      expect((await r.read((_tx, x) => x.problems())).map((p) => p.rfid)).toEqual([301])
    })

    it('attachments: new ones wait to be pushed, mapped ones wait when changed, with whether their file changed', async () => {
      const r = await make()
      const file = (blobId: string) => ({ blobId, size: 3, fileMeta: {} })
      const fid = await r.write((tx) => tx.create(input(r, 1, 'a')))
      const [p, q] = await r.write(async (tx) => [await tx.addAttachment(fid, { name: 'p.txt', mime_type: 'text/plain' }, file('bp')),
        await tx.addAttachment(fid, { name: 'q.txt', mime_type: 'text/plain' }, file('bq'))])
      const fresh = await r.read((_tx, x) => x.localAttachmentChanges())
      expect(fresh.map((ch) => [ch.aid, ch.fid, ch.kind, ch.fileChanged, ch.mapping])).toEqual([
        [p, fid, 'create', true, undefined], [q, fid, 'create', true, undefined]])
      await r.write(async (_tx, x) => { await x.map(fid, 100, 1); await x.mapAttachment(p!, 501, fid, 61); await x.mapAttachment(q!, 502, fid, 62) })
      expect(await r.read((_tx, x) => x.localAttachmentChanges())).toEqual([])
      const mp = (await r.read((_tx, x) => x.attachmentMapping(p!)))!
      expect(mp).toMatchObject({ aid: p, raid: 501, fid, base: fresh[0]!.vid, rfileobj: 61 })
      expect(await r.read((_tx, x) => x.localAttachmentOf(502))).toMatchObject({ aid: q, rfileobj: 62 })
      const many = await r.read((_tx, x) => x.localAttachmentsOf([502, 999, 501]))
      expect([...many].map(([raid, m]) => [raid, m.aid])).toEqual([[502, q], [501, p]])
      await r.write(async (tx) => {
        await tx.changeAttachment((await tx.attachment(fid, p!))!, { description: 'new' }, file('bp2'))
        await tx.changeAttachment((await tx.attachment(fid, q!))!, { description: 'only this' })
      })
      const changed = await r.read((_tx, x) => x.localAttachmentChanges())
      expect(changed.map((ch) => [ch.aid, ch.kind, ch.fileChanged, ch.mapping?.raid])).toEqual([[p, 'update', true, 501], [q, 'update', false, 502]])
      // Pushed at the versions sent: matched again; unmapping the feature unmaps its attachments.
      await r.write(async (_tx, x) => {
        for (const ch of changed) await x.mapAttachment(ch.aid, ch.mapping!.raid, fid, 70, { vid: ch.vid, fileobj: null })
      })
      expect((await r.read((_tx, x) => x.attachmentMappings())).map((m) => [m.aid, m.rfileobj, m.lfileobj])).toEqual([[p, 70, null], [q, 70, null]])
      await r.write((_tx, x) => x.unmap(fid))
      expect(await r.read((_tx, x) => x.attachmentMappings())).toEqual([])
    })
  })
}
