/**
 * The feature ports' contract (sw/feature/types.ts): what any implementation of a feature
 * layer answers, whatever keeps its features. Run by test/unit/features-port.test.ts against
 * the SQLite layer (classes/vector_layer) and the array layer (test/port/array-features.ts).
 * `make` gives a fresh, empty layer with two fields: `name` (STRING) and `n` (INTEGER).
 * `versioned`, for an implementation that keeps history (reference §12), gives fresh storage for
 * such a layer and the way to open it with a versioning epoch (or without: versioning off); the
 * versioning cases are skipped without it. `extensions: false`, for an implementation that keeps no
 * descriptions or attachments (a table of a team's database), skips the cases of those.
 */
import { describe, expect, it } from 'vitest'
import type { Condition, FeatureFilter, FeatureInput, FeatureLayer, FieldValue, LayerMeta, RowShape } from '../../sw/feature/types.ts'
import { bboxOf, type Geometry } from '../../sw/geo/geometry.ts'
import { toWkb } from '../../sw/geo/wkb.ts'
import { toBase64 } from '../../sw/core/bytes.ts'

const point = (x: number, y: number): Geometry => ({ type: 'Point', coordinates: [x, y] })

/** Opens one layer's storage with `versioning` (absent: off), as `FeatureTables.open` does when the layer's meta changes. */
export type VersionedOpener = (versioning?: LayerMeta['versioning']) => Promise<FeatureLayer>

export function featuresContract(name: string, make: () => Promise<FeatureLayer>, versioned?: () => Promise<VersionedOpener>,
  { extensions = true }: { extensions?: boolean } = {}): void {
  describe(`feature ports: ${name}`, () => {
    const fieldsOf = (layer: FeatureLayer) => {
      const by = (k: string) => layer.meta.fields.find((f) => f.keyname === k)!
      return { name: by('name'), n: by('n') }
    }
    const input = (layer: FeatureLayer, geom: Geometry | null, name: FieldValue, n: FieldValue): FeatureInput => {
      const f = fieldsOf(layer)
      // With its box, as the request parser gives it (feature/input.ts).
      return { geom, bbox: geom && bboxOf(geom), fields: [f.name, f.n], values: [name, n] }
    }
    const shape = (layer: FeatureLayer, geom = true): RowShape => ({ geom, fields: layer.meta.fields, label: false, description: false })
    /** A layer with three features: fids in creation order. */
    const seeded = async () => {
      const layer = await make()
      const fids = await layer.write((tx) => tx.createMany([
        input(layer, point(1, 2), 'b', 1), input(layer, point(5, 6), 'a', 2), input(layer, null, 'c', 3)]))
      return { layer, fids }
    }

    it('creates in one call and reads back: list, count, extent, exists, geometry', async () => {
      const { layer, fids } = await seeded()
      expect(fids).toHaveLength(3)
      expect(new Set(fids).size).toBe(3)
      const { name, n } = fieldsOf(layer)
      const rows = await layer.read((tx) => tx.list({}, shape(layer)))
      expect(rows.map((r) => r.fid)).toEqual(fids)
      expect(rows.map((r) => [r.geom, r.values[layer.meta.fields.indexOf(name)], Number(r.values[layer.meta.fields.indexOf(n)])]))
        .toEqual([[point(1, 2), 'b', 1], [point(5, 6), 'a', 2], [null, 'c', 3]])
      expect(await layer.read(async (tx) => [await tx.count(), await tx.extent(), await tx.exists(fids[1]!), await tx.exists(999),
        await tx.geometry(fids[0]!), await tx.geometry(fids[2]!), await tx.geometry(999)]))
        .toEqual([3, [1, 2, 5, 6], true, false, point(1, 2), null, undefined])
      // One more through `create`: the next fid.
      const more = await layer.write((tx) => tx.create(input(layer, point(0, 0), 'd', 4)))
      expect(more).toBeGreaterThan(fids[2]!)
      expect(await layer.read((tx) => tx.count())).toBe(4)
    })

    it('filters, orders and pages', async () => {
      const { layer, fids } = await seeded()
      const { name } = fieldsOf(layer)
      const eq = { conditions: [{ field: name, op: 'eq' as const, value: 'a' }], filtered: true }
      const inFids = { conditions: [{ field: null, op: 'in' as const, value: [fids[0]!, fids[2]!] }], filtered: true }
      const box = { conditions: [], intersects: { type: 'Polygon', coordinates: [[[4, 5], [7, 5], [7, 7], [4, 7], [4, 5]]] } as Geometry, filtered: true }
      expect(await layer.read(async (tx) => [
        (await tx.list({ filter: eq }, shape(layer, false))).map((r) => r.fid),
        (await tx.list({ filter: inFids }, shape(layer, false))).map((r) => r.fid),
        (await tx.list({ filter: box }, shape(layer, false))).map((r) => r.fid),
        (await tx.list({ order: [{ field: name, desc: false }] }, shape(layer, false))).map((r) => r.fid),
        (await tx.list({ order: [{ field: name, desc: true }], limit: 1, offset: 1 }, shape(layer, false))).map((r) => r.fid),
        (await tx.list({ fid: fids[1] }, shape(layer, false))).map((r) => r.fid),
        await tx.count(eq), await tx.extent(inFids),
      ])).toEqual([[fids[1]], [fids[0], fids[2]], [fids[1]], [fids[1], fids[0], fids[2]], [fids[0]], [fids[1]], 1, [1, 2, 1, 2]])
    })

    it('updates and deletes; false for a feature that is not there', async () => {
      const { layer, fids } = await seeded()
      const { name } = fieldsOf(layer)
      expect(await layer.write(async (tx) => [
        await tx.update(fids[0]!, { geom: point(9, 9), bbox: [9, 9, 9, 9], fields: [name], values: ['z'] }),
        await tx.update(999, { fields: [name], values: ['y'] }),
        await tx.delete(fids[1]!), await tx.delete(fids[1]!),
      ])).toEqual([true, false, true, false])
      const rows = await layer.read((tx) => tx.list({}, shape(layer)))
      expect(rows.map((r) => [r.fid, r.geom, r.values[layer.meta.fields.indexOf(name)]]))
        .toEqual([[fids[0], point(9, 9), 'z'], [fids[2], null, 'c']])
      await layer.write((tx) => tx.deleteAll())
      expect(await layer.read(async (tx) => [await tx.count(), await tx.extent()])).toEqual([0, null])
    })

    it('updates many in one call as one by one, in order: each answer, the same feature twice ends as its last, absent ones false', async () => {
      const { layer, fids } = await seeded()
      const { name, n } = fieldsOf(layer)
      const [a, b, c] = fids as [number, number, number]
      expect(await layer.write((tx) => tx.updateMany([
        { fid: a, input: { geom: point(9, 9), bbox: [9, 9, 9, 9], fields: [name], values: ['z'] } },
        { fid: 999, input: { fields: [name], values: ['y'] } },
        { fid: c, input: { fields: [n], values: [30] } },
        { fid: a, input: { fields: [name, n], values: ['z2', 10] } },
        { fid: b, input: { geom: null, bbox: null, fields: [], values: [] } },
      ]))).toEqual([true, false, true, true, true])
      const rows = await layer.read((tx) => tx.list({}, shape(layer)))
      expect(rows.map((r) => [r.fid, r.geom, r.values[layer.meta.fields.indexOf(name)], Number(r.values[layer.meta.fields.indexOf(n)])]))
        .toEqual([[a, point(9, 9), 'z2', 10], [b, null, 'a', 2], [c, null, 'c', 30]])
      expect(await layer.read((tx) => tx.extent())).toEqual([9, 9, 9, 9])
      expect(await layer.write((tx) => tx.updateMany([]))).toEqual([])
    })

    it.skipIf(!extensions)('creates features setting different fields in one call (the rest null), keeps descriptions, updates only what is given', async () => {
      const layer = await make()
      const { name, n } = fieldsOf(layer)
      const fids = await layer.write((tx) => tx.createMany([
        { geom: null, fields: [name], values: ['only name'], description: 'about it' },
        { geom: point(1, 1), bbox: [1, 1, 1, 1], fields: [n], values: [5] },
        { geom: null, fields: [], values: [] }]))
      expect(fids).toEqual([...fids].sort((a, b) => a - b))
      const full = { geom: true, fields: [name, n], label: false, description: true }
      const read = () => layer.read(async (tx) => (await tx.list({}, full))
        .map((r) => [r.geom, r.values.map((v) => (v === null ? v : String(v))), r.description]))
      expect(await read()).toEqual([[null, ['only name', null], 'about it'], [point(1, 1), [null, '5'], null], [null, [null, null], null]])
      await layer.write(async (tx) => {
        await tx.update(fids[0]!, { fields: [], values: [], description: null })
        await tx.update(fids[1]!, { geom: null, bbox: null, fields: [], values: [] })
        await tx.update(fids[2]!, { fields: [n], values: [7], description: 'new' })
      })
      expect(await read()).toEqual([[null, ['only name', null], null], [null, [null, '5'], null], [null, [null, '7'], 'new']])
      expect(await layer.read((tx) => tx.extent())).toBeNull()
    })

    it('compares and orders as SQL: NULLs last ascending and first descending, strings by code point, ilike folding Unicode', async () => {
      const layer = await make()
      const { name, n } = fieldsOf(layer)
      const fids = await layer.write((tx) => tx.createMany([
        input(layer, null, 'Ärger', 10), input(layer, null, 'apple', 9), input(layer, null, null, null), input(layer, null, 'Zebra', -1)]))
      const [arger, apple, none, zebra] = fids as [number, number, number, number]
      const where = (field: typeof name | null, op: Condition['op'], value: Condition['value']): FeatureFilter =>
        ({ conditions: [{ field, op, value }], filtered: true })
      const no = shape(layer, false)
      expect(await layer.read(async (tx) => [
        (await tx.list({ order: [{ field: name, desc: false }] }, no)).map((r) => r.fid),
        (await tx.list({ order: [{ field: name, desc: true }] }, no)).map((r) => r.fid),
        (await tx.list({ order: [{ field: n, desc: false }] }, no)).map((r) => r.fid),
        (await tx.list({ filter: where(name, 'ilike', 'ä%') }, no)).map((r) => r.fid),
        (await tx.list({ filter: where(name, 'ne', 'apple') }, no)).map((r) => r.fid),
        (await tx.list({ filter: where(n, 'isnull', true) }, no)).map((r) => r.fid),
        await tx.count(where(n, 'gt', 5)), await tx.count(where(name, 'isnull', false)),
      ])).toEqual([[zebra, apple, arger, none], [none, arger, apple, zebra], [zebra, apple, arger, none], [arger], [arger, zebra],
        [none], 2, 3])
    })

    it('a write that throws keeps nothing of it', async () => {
      const { layer, fids } = await seeded()
      await expect(layer.write(async (tx) => {
        await tx.delete(fids[0]!)
        await tx.createMany([input(layer, point(3, 3), 'x', 9)])
        throw new Error('changed my mind')
      })).rejects.toThrow('changed my mind')
      expect(await layer.read(async (tx) => (await tx.list({}, shape(layer, false))).map((r) => r.fid))).toEqual(fids)
    })

    it.skipIf(!extensions)('keeps attachments: add, list, change (the old file an orphan), remove', async () => {
      const { layer, fids } = await seeded()
      const [a, b] = [fids[0]!, fids[1]!]
      const file = (blobId: string) => ({ blobId, size: 3, fileMeta: {} })
      const ids = await layer.write(async (tx) => [
        await tx.addAttachment(a, { name: 'one.txt', mime_type: 'text/plain' }, file('blob-1')),
        await tx.addAttachment(a, { name: 'two.txt', mime_type: 'text/plain', keyname: 'k' }, file('blob-2')),
        await tx.addAttachment(b, { name: 'three.txt', mime_type: 'text/plain' }, file('blob-3'))])
      const all = await layer.read((tx) => tx.attachments())
      expect([...all.keys()].sort()).toEqual([a, b].sort())
      expect(all.get(a)!.map((r) => [r.id, r.name, r.keyname, r.blob_id, r.size])).toEqual([
        [ids[0], 'one.txt', null, 'blob-1', 3], [ids[1], 'two.txt', 'k', 'blob-2', 3]])
      expect((await layer.read((tx) => tx.attachments([b]))).get(b)!.map((r) => r.id)).toEqual([ids[2]])
      expect(await layer.read((tx) => tx.attachment(b, ids[0]!))).toBeUndefined()
      const orphans = await layer.write(async (tx) => {
        await tx.changeAttachment((await tx.attachment(a, ids[0]!))!, { description: 'new' }, file('blob-4'))
        await tx.removeAttachment((await tx.attachment(b, ids[2]!))!)
        return [...tx.orphanBlobs]
      })
      expect(orphans.sort()).toEqual(['blob-1', 'blob-3'])
      expect(await layer.read((tx) => tx.attachment(a, ids[0]!))).toMatchObject({ name: 'one.txt', description: 'new', blob_id: 'blob-4' })
      expect((await layer.read((tx) => tx.attachments())).get(b)).toBeUndefined()
    })

    it('moves its token with each write, and refuses a tx used after its read or write', async () => {
      const { layer } = await seeded()
      const before = layer.token?.()
      let leaked: Parameters<Parameters<FeatureLayer['write']>[0]>[0] | undefined
      await layer.write(async (tx) => { leaked = tx; await tx.create(input(layer, null, 'x', 0)) })
      if (before !== undefined) expect(layer.token!()).not.toBe(before)
      await expect(leaked!.count()).rejects.toThrow()
      await expect(leaked!.create(input(layer, null, 'y', 0))).rejects.toThrow()
      expect(await layer.read((tx) => tx.count())).toBe(4)
      // Without versioning, a history answers none (or there is no history at all).
      expect(await layer.read(async (tx) => tx.history ? tx.history.versioning() : undefined)).toBeUndefined()
    })

    // ---- versioning (reference §12): only where the implementation keeps history ----

    const wkb = (x: number, y: number) => toBase64(toWkb(point(x, y)))
    const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/
    /** A versioned layer (epoch 1, turned on by user 5: version 1) with two features made by user 7 (version 2). */
    const versionedSeeded = async () => {
      const open = await versioned!()
      const layer = await open({ epoch: 1, userId: 5 })
      const fids = await layer.write((tx) => tx.createMany([input(layer, point(1, 2), 'a', 1), input(layer, point(3, 4), 'b', 2)]),
        { userId: 7 })
      return { open, layer, fids: fids as [number, number] }
    }
    const rowsOf = (layer: FeatureLayer, version?: number) => layer.read(async (tx) => (await tx.list({ version }, shape(layer)))
      .map((r) => [r.fid, r.vid, r.geom, ...r.values.map((v) => (v === null ? v : String(v)))]))

    it.skipIf(!versioned)('keeps a version per write: vids, the versions, features as of a version, their records, the summary', async () => {
      const { layer, fids: [a, b] } = await versionedSeeded()
      const { name } = fieldsOf(layer)
      expect(await layer.read((tx) => tx.history!.versioning())).toEqual({ epoch: 1, latest: 2 })
      const made = await layer.write(async (tx) => {
        await tx.update(a, { geom: point(9, 9), bbox: [9, 9, 9, 9], fields: [name], values: ['z'] })
        return tx.historyWrite!.version
      }, { userId: 7 })
      expect(made).toBe(3)
      await layer.write((tx) => tx.delete(b))
      expect(await rowsOf(layer)).toEqual([[a, 3, point(9, 9), 'z', '1']])
      expect(await rowsOf(layer, 2)).toEqual([[a, 2, point(1, 2), 'a', '1'], [b, 2, point(3, 4), 'b', '2']])
      expect(await rowsOf(layer, 3)).toEqual([[a, 3, point(9, 9), 'z', '1'], [b, 2, point(3, 4), 'b', '2']])
      expect(await rowsOf(layer, 1)).toEqual([])
      const h = await layer.read(async (tx) => {
        const hist = tx.history!
        return {
          latest: (await hist.versioning())!.latest,
          all: await hist.versions({ order: 'asc', limit: 10 }),
          page: (await hist.versions({ order: 'desc', cursor: 4, limit: 2 })).map((v) => v.id),
          record: await hist.versionRecord(3), none: await hist.versionRecord(99),
          items: [await hist.featureVersion(a), await hist.featureVersion(b), await hist.featureVersion(999)],
          sums: [await hist.summary(1, 4), await hist.summary(2, 4), await hist.summary(3, 3)],
        }
      })
      expect(h.latest).toBe(4)
      expect(h.all.map((v) => [v.id, v.userId])).toEqual([[1, 5], [2, 7], [3, 7], [4, null]])
      for (const v of h.all) expect(v.tstamp).toMatch(ISO)
      expect(h.page).toEqual([3, 2])
      expect(h.record).toEqual(h.all[2])
      expect(h.none).toBeUndefined()
      expect(h.items).toEqual([{ vid: 3, deleted: false }, { vid: 4, deleted: true }, undefined])
      expect(h.sums).toEqual([{ create: 1, update: 0, delete: 0, restore: 0 }, { create: 0, update: 1, delete: 1, restore: 0 },
        { create: 0, update: 0, delete: 0, restore: 0 }])
    })

    it.skipIf(!versioned)('answers the changes between versions, squashed per feature, with base64 WKB and only what changed', async () => {
      const { layer, fids: [a, b] } = await versionedSeeded()
      const { name, n } = fieldsOf(layer)
      await layer.write(async (tx) => {
        await tx.update(a, { fields: [n], values: [10] })
        await tx.update(b, { geom: point(5, 5), bbox: [5, 5, 5, 5], fields: [], values: [] })
      })
      const c = await layer.write((tx) => tx.create(input(layer, null, null, 3)))
      await layer.write((tx) => tx.delete(b))
      const range = { fidMin: a, fidMax: c, extensions: [] }
      expect(await layer.read(async (tx) => [
        await tx.history!.changedFids(2, 5, null, 10), await tx.history!.changedFids(2, 5, a, 1), await tx.history!.changedFids(5, 5, null, 10),
        await tx.history!.changes({ initial: 2, target: 3, ...range }),
        await tx.history!.changes({ initial: 2, target: 5, ...range }),
        await tx.history!.changes({ initial: 0, target: 5, ...range }),
      ])).toEqual([[a, b, c], [b], [],
        [{ action: 'feature.update', fid: a, vid: 3, fields: [[n.id, 10]] }, { action: 'feature.update', fid: b, vid: 3, geom: wkb(5, 5), fields: [] }],
        [{ action: 'feature.update', fid: a, vid: 3, fields: [[n.id, 10]] }, { action: 'feature.delete', fid: b, vid: 5 },
          { action: 'feature.create', fid: c, vid: 4, fields: [[n.id, 3]] }],
        [{ action: 'feature.create', fid: a, vid: 3, geom: wkb(1, 2), fields: [[name.id, 'a'], [n.id, 10]] },
          { action: 'feature.create', fid: c, vid: 4, fields: [[n.id, 3]] }]])
    })

    it.skipIf(!versioned)('makes no version for a write that changes nothing or throws; restores a deleted feature', async () => {
      const { layer, fids: [a, b] } = await versionedSeeded()
      const { n } = fieldsOf(layer)
      expect(await layer.write(async (tx) => [await tx.update(999, { fields: [n], values: [1] }), await tx.delete(999),
        tx.historyWrite!.version])).toEqual([false, false, undefined])
      await expect(layer.write(async (tx) => { await tx.delete(a); throw new Error('no') })).rejects.toThrow('no')
      expect(await layer.read((tx) => tx.history!.versioning())).toEqual({ epoch: 1, latest: 2 })
      await layer.write((tx) => tx.delete(b))
      expect(await layer.write(async (tx) => [await tx.historyWrite!.restore(a, { fields: [], values: [] }),
        await tx.historyWrite!.restore(b, { fields: [n], values: [5] }), tx.historyWrite!.version])).toEqual([false, true, 4])
      expect(await rowsOf(layer)).toEqual([[a, 2, point(1, 2), 'a', '1'], [b, 4, point(3, 4), 'b', '5']])
      expect(await rowsOf(layer, 3)).toEqual([[a, 2, point(1, 2), 'a', '1']])
      expect(await layer.read(async (tx) => [await tx.history!.featureVersion(b), await tx.history!.summary(3, 4),
        await tx.history!.changes({ initial: 3, target: 4, fidMin: b, fidMax: b, extensions: [] })]))
        .toEqual([{ vid: 4, deleted: false }, { create: 0, update: 0, delete: 0, restore: 1 },
          // Against its last values (the deleted state): only what differs.
          [{ action: 'feature.restore', fid: b, vid: 4, fields: [[n.id, 5]] }]])
    })

    it.skipIf(!versioned)('keeps attachments and descriptions as of each version, their old files included, and feeds their changes', async () => {
      const { layer, fids: [a] } = await versionedSeeded()
      const file = (blobId: string) => ({ blobId, size: 3, fileMeta: {} })
      const aid = await layer.write(async (tx) => {
        await tx.update(a, { fields: [], values: [], description: 'first' })
        return tx.addAttachment(a, { name: 'one.txt', mime_type: 'text/plain' }, file('blob-1'))
      }) // version 3
      const orphans = await layer.write(async (tx) => {
        await tx.changeAttachment((await tx.attachment(a, aid))!, { description: 'new' }, file('blob-2'))
        await tx.update(a, { fields: [], values: [], description: 'second' })
        // The same description again is no change.
        await tx.update(a, { fields: [], values: [], description: 'second' })
        return [...tx.orphanBlobs]
      }) // version 4
      expect(orphans).toEqual([])
      await layer.write(async (tx) => tx.removeAttachment((await tx.attachment(a, aid))!)) // version 5
      const desc = (v?: number) => layer.read(async (tx) => (await tx.list({ version: v, fid: a },
        { geom: false, fields: [], label: false, description: true }))[0]!.description)
      expect([await desc(2), await desc(3), await desc(4), await desc()]).toEqual([null, 'first', 'second', 'second'])
      const at = (v: number) => layer.read(async (tx) => (await tx.history!.attachmentsAt([a], v)).get(a)?.map((r) =>
        [r.id, r.fid, r.name, r.description, r.blob_id, r.size]))
      expect([await at(2), await at(3), await at(4), await at(5)]).toEqual([undefined, [[aid, a, 'one.txt', null, 'blob-1', 3]],
        [[aid, a, 'one.txt', 'new', 'blob-2', 3]], undefined])
      const got = await layer.read(async (tx) => {
        const hist = tx.history!
        const ops = await hist.changes({ initial: 2, target: 4, fidMin: a, fidMax: a, extensions: ['attachment', 'description'] })
        const fileobjs = ops.filter((o) => o.action === 'attachment.create').map((o) => o.fileobj as number)
        const old = (await hist.attachmentsAt([a], 3)).get(a)![0]!.fileobj!
        return { ops, files: [await hist.attachmentBlob(aid, old), await hist.attachmentBlob(aid, fileobjs[0]!), await hist.attachmentBlob(aid, 999)],
          items: [await hist.attachmentVersion(a, aid),
          await hist.descriptionVersion(a), await hist.attachmentVersion(a, 999)],
          gone: await hist.changes({ initial: 4, target: 5, fidMin: a, fidMax: a, extensions: ['attachment'] }) }
      })
      expect(got.ops).toEqual([
        { action: 'attachment.create', fid: a, aid, vid: 4, fileobj: expect.any(Number), name: 'one.txt', mime_type: 'text/plain', description: 'new' },
        { action: 'description.put', fid: a, vid: 4, value: 'second' }])
      expect(got.files).toEqual(['blob-1', 'blob-2', undefined])
      expect(got.items).toEqual([{ vid: 5, deleted: true }, { vid: 4, deleted: false }, undefined])
      expect(got.gone).toEqual([{ action: 'attachment.delete', fid: a, aid, vid: 5 }])
    })

    it.skipIf(!versioned)('stores transactions: operations by seqnum, a different one refused, errors, commit with results, dispose', async () => {
      const { layer } = await versionedSeeded()
      const rec = await layer.write((tx) => tx.historyWrite!.startTransaction(3, 1, '2026-01-01T00:00:00'))
      expect(rec).toEqual({ id: rec.id, userId: 3, epoch: 1, started: '2026-01-01T00:00:00', committed: null })
      const put = (items: { seqnum: number; payload: string | null }[]) => layer.write((tx) => tx.historyWrite!.putTransactionOps(rec.id, items))
      expect([await put([{ seqnum: 2, payload: 'b' }, { seqnum: 1, payload: 'a' }]), await put([{ seqnum: 1, payload: 'a' }]),
        await put([{ seqnum: 3, payload: 'c' }, { seqnum: 1, payload: 'x' }])]).toEqual([undefined, undefined, 1])
      await layer.write((tx) => tx.historyWrite!.setTransactionErrors(rec.id, [[2, 'bad']]))
      expect(await layer.read((tx) => tx.history!.transactionOps(rec.id))).toEqual([
        { seqnum: 1, payload: 'a', error: null }, { seqnum: 2, payload: 'b', error: 'bad' }])
      // One that failed may be replaced or removed.
      expect(await put([{ seqnum: 2, payload: 'c' }, { seqnum: 2, payload: null }, { seqnum: 4, payload: 'd' }])).toBeUndefined()
      expect(await layer.read((tx) => tx.history!.transactionOps(rec.id))).toEqual([
        { seqnum: 1, payload: 'a', error: null }, { seqnum: 4, payload: 'd', error: null }])
      await layer.write((tx) => tx.historyWrite!.commitTransaction(rec.id, '2026-01-01T00:00:05', [[1, 'r1'], [4, 'r4']]))
      const other = await layer.write((tx) => tx.historyWrite!.startTransaction(3, null, '2026-01-01T00:00:06'))
      await layer.write((tx) => tx.historyWrite!.disposeTransaction(other.id))
      expect(await layer.read(async (tx) => [await tx.history!.transaction(rec.id), await tx.history!.transactionOps(rec.id),
        await tx.history!.transactionResults(rec.id), await tx.history!.transaction(other.id)])).toEqual([
        { ...rec, committed: '2026-01-01T00:00:05' }, [], [[1, 'r1'], [4, 'r4']], undefined])
      // Stored transactions make no version of their own.
      expect((await layer.read((tx) => tx.history!.versioning()))!.latest).toBe(2)
    })

    it.skipIf(!versioned)('starts the history anew with a new epoch: version 1 holds every feature, the old versions are gone', async () => {
      const { open, layer, fids: [a, b] } = await versionedSeeded()
      const { name } = fieldsOf(layer)
      await layer.write((tx) => tx.update(a, { fields: [name], values: ['z'] }))
      const again = await open({ epoch: 2, userId: 9 })
      expect(await again.read(async (tx) => [await tx.history!.versioning(), (await tx.history!.versions({ order: 'asc', limit: 9 }))
        .map((v) => [v.id, v.userId]), await tx.history!.changes({ initial: 0, target: 1, fidMin: a, fidMax: b, extensions: [] })]))
        .toEqual([{ epoch: 2, latest: 1 }, [[1, 9]], [
          { action: 'feature.create', fid: a, vid: 1, geom: wkb(1, 2), fields: [[name.id, 'z'], [fieldsOf(layer).n.id, 1]] },
          { action: 'feature.create', fid: b, vid: 1, geom: wkb(3, 4), fields: [[name.id, 'b'], [fieldsOf(layer).n.id, 2]] }]])
      expect(await rowsOf(again)).toEqual([[a, 1, point(1, 2), 'z', '1'], [b, 1, point(3, 4), 'b', '2']])
      // Off, then on again: nothing of the epochs before.
      const off = await open()
      expect(await off.read(async (tx) => tx.history ? tx.history.versioning() : undefined)).toBeUndefined()
      await off.write((tx) => tx.delete(b))
      const on = await open({ epoch: 3, userId: null })
      expect(await on.read(async (tx) => [await tx.history!.versioning(), await tx.history!.featureVersion(b),
        (await tx.history!.versions({ order: 'asc', limit: 9 })).map((v) => [v.id, v.userId])]))
        .toEqual([{ epoch: 3, latest: 1 }, undefined, [[1, null]]])
    })
  })
}

