/**
 * Versioned layers on PostGIS (sw/postgres/features: history-schema, tracker, versions, changes,
 * transactions) answer as SQLite's (sw/sqlite/features): one script of versioned writes (creates
 * with descriptions, updates of geometry, fields and descriptions alone, attachments added,
 * replaced and removed, deletes, a restore, a batch's `beforeUpdates`, a write that changes
 * nothing, a stored transaction filled, refused, failed and committed, epoch restarts with
 * versioning off between) runs on both, and every history answer after each step is compared
 * as JSON text. And what only the PostgreSQL port shows: `FeatureTables.latest` across two
 * processes (ports) sharing one database.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { nodePlatform } from '../../sw/host/node.ts'
import { Database } from '../../sw/store/database.ts'
import { migrateMain } from '../../sw/sqlite/migrate.ts'
import { openSqlitePort } from '../../sw/sqlite/port.ts'
import { openPostgresData, type PostgresPort } from '../../sw/postgres/port.ts'
import type { FeatureInput, FeatureLayer, FeatureWrite, Field, FieldType, FieldValue, LayerMeta } from '../../sw/feature/types.ts'
import type { FeatureTables } from '../../sw/port/features.ts'
import { bboxOf, type Geometry } from '../../sw/geo/geometry.ts'
import { cluster } from '../pg/shared.ts'

const field = (id: number, keyname: string, datatype: FieldType): Field => ({ id, keyname, display_name: keyname, datatype,
  typemod: null, label_field: keyname === 's', grid_visibility: true, text_search: true, required: false, lookup_table: null })

const FIELDS: Field[] = [field(1, 'i', 'INTEGER'), field(2, 'b', 'BIGINT'), field(3, 'r', 'REAL'), field(4, 's', 'STRING'),
  field(5, 'd', 'DATE'), field(6, 't', 'TIME'), field(7, 'dt', 'DATETIME'), field(8, 'ok', 'BOOLEAN')]
const ID = 21
const meta = (versioning?: LayerMeta['versioning']): LayerMeta =>
  ({ resourceId: ID, srs: 3857, geometryType: 'POINT', fields: FIELDS, ...(versioning ? { versioning } : {}) })
const point = (x: number, y: number): Geometry => ({ type: 'Point', coordinates: [x, y] })
const feature = (geom: Geometry | null, values: FieldValue[], description?: string | null): FeatureInput =>
  ({ geom, bbox: geom && bboxOf(geom), fields: FIELDS, values, description })
const only = (k: number, value: FieldValue): FeatureInput => ({ fields: [FIELDS[k]!], values: [value] })
const file = (blobId: string, size = 3) => ({ blobId, size, fileMeta: { n: size } })

/** Numbers and bigints alike as JSON (bigint tagged, so 2^60 is not taken for a rounded number). */
const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Map ? [...x] : x))

/** The clock of both: writes a second apart, so the versions' tstamps and their filters differ. */
function clock() {
  let t = Date.parse('2026-03-04T05:06:07Z')
  return () => new Date((t += 1000))
}

/** Every history answer of the layer as it is now: versions, features and extensions at each version, feeds between every pair. */
async function everything(layer: FeatureLayer): Promise<unknown[]> {
  return layer.read(async (tx) => {
    const h = tx.history
    const out: unknown[] = [await h?.versioning()]
    if (!h || !(await h.versioning())) {
      out.push(await tx.list({}, { geom: true, fields: FIELDS, label: true, description: true }))
      return out
    }
    const latest = (await h.versioning())!.latest
    const all = await h.versions({ order: 'asc', limit: 100 })
    out.push(all, await h.versions({ order: 'desc', cursor: latest, limit: 2 }), await h.versions({ order: 'asc', cursor: 1, limit: 2 }),
      await h.versions({ order: 'asc', limit: 100, tstampGe: all[1]?.tstamp ?? '', tstampLt: all[all.length - 1]!.tstamp }))
    const fids = (await tx.list({}, { geom: false, fields: [], label: false, description: false })).map((r) => r.fid)
    const every = [...new Set([...fids, 1, 2, 3, 4, 5, 6, 7, 99])]
    for (let v = 0; v <= latest + 1; v++) {
      out.push(v, await h.versionRecord(v), await tx.list({ version: v }, { geom: true, fields: FIELDS, label: true, description: true }),
        await h.attachmentsAt(every, v))
      for (let t = v; t <= latest; t++) {
        out.push(t, await h.summary(v, t), await h.changedFids(v, t, null, 100), await h.changedFids(v, t, 2, 2),
          await h.changes({ initial: v, target: t, fidMin: 0, fidMax: 100, extensions: ['attachment', 'description'] }),
          await h.changes({ initial: v, target: t, fidMin: 2, fidMax: 3, extensions: [] }))
      }
    }
    for (const fid of every) {
      out.push(fid, await h.featureVersion(fid), await h.descriptionVersion(fid))
      for (let aid = 1; aid <= 5; aid++) out.push(await h.attachmentVersion(fid, aid))
    }
    for (let aid = 1; aid <= 5; aid++) for (let fo = 1; fo <= 8; fo++) out.push(await h.attachmentBlob(aid, fo))
    for (let tid = 1; tid <= 3; tid++) {
      out.push(await h.transaction(tid), await h.transactionOps(tid), await h.transactionResults(tid))
    }
    out.push(await tx.list({}, { geom: true, fields: FIELDS, label: true, description: true }), await tx.attachments())
    return out
  })
}

/** The script on one implementation's tables: each step's own answers, then `everything` after it. */
async function script(tables: FeatureTables): Promise<unknown[][]> {
  const now = clock()
  const steps: unknown[][] = []
  const open = (versioning?: LayerMeta['versioning']) => tables.open(meta(versioning), now)
  let layer = await open({ epoch: 1, userId: 5 })
  const step = async (answers: unknown) => {
    steps.push([answers, tables.latest(ID), ...await everything(layer)])
  }
  await step('opened')
  // The write's version and orphans as the component reads them: after the write (SQLite inserts queued creates at its end).
  const w = async (fn: (tx: FeatureWrite) => Promise<unknown>, userId?: number) => {
    let done: FeatureWrite | undefined
    const out = await layer.write((tx) => fn(done = tx), { userId })
    return [out, done!.historyWrite?.version, [...done!.orphanBlobs]]
  }
  await step(await w((tx) => tx.createMany([
    feature(point(1, 2), [1, 2n ** 60n, 1.5, 'Ärger', '2024-02-29', '23:59:58', '2024-02-29T12:34:56', 1], 'first'),
    feature(point(5, 6), [-7, -(2 ** 40), -0.25, 'apple', '1999-12-31', '00:00:00', '1999-12-31T23:59:59', 0]),
    feature(null, [null, null, null, null, null, null, null, null], 'no geometry'),
    feature(point(-3, 4), [42, 0, 1e20, 'Zebra', '2024-03-01', '12:00:00', '2024-03-01T00:00:00', 1], '')]), 7))
  await step(await w(async (tx) => [
    await tx.update(1, { geom: point(9, 9), bbox: [9, 9, 9, 9], ...only(3, 'changed') }),
    await tx.update(2, { fields: [], values: [], description: 'now described' }),
    await tx.update(3, { fields: [], values: [], description: 'no geometry' }),
    await tx.addAttachment(1, { name: 'one.txt', mime_type: 'text/plain' }, file('blob-1')),
    await tx.addAttachment(3, { name: 'two.txt', mime_type: 'text/plain', keyname: 'k', description: 'd' }, file('blob-2', 5)),
  ], 7))
  await step(await w(async (tx) => [
    await tx.delete(2),
    await tx.changeAttachment((await tx.attachment(1, 1))!, { description: 'new', name: 'uno.txt' }, file('blob-3', 4)),
    await tx.historyWrite!.beforeUpdates([1, 3, 99]),
    await tx.update(1, only(0, 100)), await tx.update(3, { geom: point(0, 0), bbox: [0, 0, 0, 0], ...only(7, 1) }),
    await tx.update(4, { fields: [], values: [], description: null }),
  ]))
  await step(await w(async (tx) => [
    await tx.historyWrite!.restore(2, only(1, 3)), await tx.historyWrite!.restore(1, only(1, 4)),
    await tx.removeAttachment((await tx.attachment(3, 2))!),
    await tx.update(1, { fields: [], values: [], description: 'first' }),
    await tx.addAttachment(4, { name: 'three.txt', mime_type: 'text/csv' }, file('blob-4')),
  ], 8))
  // Nothing changes: no version.
  await step(await w(async (tx) => [await tx.update(99, only(0, 1)), await tx.delete(99), await tx.historyWrite!.restore(99, only(0, 1)),
    await tx.update(1, { fields: [], values: [], description: 'first' })]))
  // A stored transaction: filled, refused, failed, committed with the features it makes.
  const tid = await layer.write(async (tx) => (await tx.historyWrite!.startTransaction(7, 1, '2026-03-04T05:00:00')).id)
  await step(await w(async (tx) => [
    await tx.historyWrite!.putTransactionOps(tid, [{ seqnum: 1, payload: '{"a":1}' }, { seqnum: 2, payload: '{"b":2}' }]),
    await tx.historyWrite!.putTransactionOps(tid, [{ seqnum: 1, payload: '{"a":1}' }, { seqnum: 3, payload: 'c' }]),
    await tx.historyWrite!.putTransactionOps(tid, [{ seqnum: 3, payload: 'x' }]),
  ]))
  await step(await w(async (tx) => tx.historyWrite!.setTransactionErrors(tid, [[2, 'bad'], [3, 'worse']])))
  await step(await w(async (tx) => [await tx.historyWrite!.putTransactionOps(tid, [{ seqnum: 2, payload: null }, { seqnum: 3, payload: 'y' }])]))
  await step(await w(async (tx) => {
    const fids = await tx.createMany([feature(point(7, 7), [7, 7, 7, 'seven', '2024-07-07', '07:07:07', '2024-07-07T07:07:07', 1], 'made')])
    await tx.historyWrite!.beforeUpdates([4])
    await tx.update(4, only(2, 2.5))
    await tx.historyWrite!.commitTransaction(tid, '2026-03-04T05:09:00', [[1, `{"fid":${fids[0]}}`], [3, '{}']])
    return fids
  }, 7))
  const gone = await layer.write(async (tx) => (await tx.historyWrite!.startTransaction(8, null, '2026-03-04T05:10:00')).id)
  await step(await w(async (tx) => tx.historyWrite!.disposeTransaction(gone)))
  // A new epoch: version 1 holds the features as they are; files only the old history kept go.
  layer = await open({ epoch: 2, userId: 9 })
  await step('epoch 2')
  await step(await w(async (tx) => [await tx.delete(1), await tx.update(3, only(4, '2025-01-01'))]))
  layer = await open()
  await step('off')
  await step(await w(async (tx) => [await tx.delete(3), await tx.create(feature(null, [1, 1, 1, 'off', null, null, null, 0]))]))
  layer = await open({ epoch: 3, userId: null })
  await step('epoch 3')
  await step(await w(async (tx) => tx.deleteAll(), 5))
  return steps
}

const opened: PostgresPort[] = []
afterAll(async () => { for (const d of opened) await d.close() })

async function sqliteTables(): Promise<FeatureTables> {
  const platform = nodePlatform({ admin: { password: 'x', mustChange: false }, log: () => {} })
  const main = await Database.open(await platform.sqlite(), platform.store, 'main', migrateMain)
  return openSqlitePort({ main, store: platform.store }).features
}

async function pgPort(url?: string): Promise<PostgresPort> {
  const data = await openPostgresData(url ?? await (await cluster()).database('ver'), { maxConnections: 4 })
  opened.push(data)
  return data
}

describe('versioned layers on PostGIS answer as SQLite', () => {
  it('one script of versioned writes: every history answer after every step alike', async () => {
    const [a, b] = [await script(await sqliteTables()), await script((await pgPort()).features)]
    expect(b.length).toBe(a.length)
    // Step by step, so a difference names its step.
    for (let i = 0; i < a.length; i++) expect(`step ${i}: ${json(b[i])}`).toBe(`step ${i}: ${json(a[i])}`)
    // The script did what it says (not two implementations agreeing on nothing).
    const last = a[a.length - 2]!
    expect(last[0]).toBe('epoch 3')
    expect(a.length).toBe(17)
    const text = json(a)
    expect(text.length).toBeGreaterThan(50_000)
    for (const action of ['feature.create', 'feature.update', 'feature.delete', 'feature.restore', 'attachment.create', 'attachment.update',
      'attachment.delete', 'description.put']) expect(text).toContain(`"action":"${action}"`)
    expect(text).toContain('"committed":"2026-03-04T05:09:00"')
  })

  it('latest: a second process sees another\'s versions after tokens.refresh() and its next open', async () => {
    const url = await (await cluster()).database('ver2')
    const [one, two] = [await pgPort(url), await pgPort(url)]
    const m = meta({ epoch: 1, userId: 1 })
    const l1 = await one.features.open(m, () => new Date())
    const l2 = await two.features.open(m, () => new Date())
    expect([one.features.latest(ID), two.features.latest(ID)]).toEqual([1, 1])
    await l1.write((tx) => tx.create(feature(null, [1, 1, 1, 'x', null, null, null, 0])))
    await l2.write((tx) => tx.create(feature(null, [2, 2, 2, 'y', null, null, null, 0])))
    // Each knows its own write at once; the other's only after it has heard of it.
    expect([one.features.latest(ID), two.features.latest(ID)]).toEqual([2, 3])
    await one.tokens.refresh()
    await one.features.open(m, () => new Date())
    expect(one.features.latest(ID)).toBe(3)
    // Versions are numbered in the database under the layer's lock, never from a process's memory.
    expect(await l1.write(async (tx) => { await tx.create(feature(null, [3, 3, 3, 'z', null, null, null, 0])); return tx.historyWrite!.version }))
      .toBe(4)
    expect(one.features.latest(ID)).toBe(4)
    expect(await l2.read(async (tx) => (await tx.history!.versions({ order: 'asc', limit: 9 })).map((v) => v.id))).toEqual([1, 2, 3, 4])
    // The epoch restart happens once, whichever process opens first.
    await one.features.open(meta({ epoch: 2, userId: 1 }), () => new Date())
    await two.tokens.refresh()
    await two.features.open(meta({ epoch: 2, userId: 1 }), () => new Date())
    expect([one.features.latest(ID), two.features.latest(ID)]).toEqual([1, 1])
    const l3 = await two.features.open(meta({ epoch: 2, userId: 1 }), () => new Date())
    expect(await l3.read(async (tx) => (await tx.list({}, { geom: false, fields: [], label: false, description: false })).map((r) => r.vid)))
      .toEqual([1, 1, 1])
  })

  it('a layer whose tables predate versioning gets its history tables on the next open; field changes reach the history', async () => {
    const url = await (await cluster()).database('ver3')
    const data = await pgPort(url)
    const plain = await data.features.open(meta(), () => new Date())
    const [fid] = await plain.write((tx) => tx.createMany([feature(point(1, 1), [1, 1, 1, 'old', null, null, null, 0])]))
    // As a layer made before this change: no history tables at all.
    const names = ['version', 'vstate', 'history', 'ext_vstate', 'ext_history', 'tx', 'tx_op', 'tx_result', 'meta'].map((n) => `layer_${ID}_${n}`)
    await data.pool.query(`DROP TABLE ${names.join(', ')}`)
    const later = await pgPort(url)
    const fields = [...FIELDS.slice(1), field(9, 'extra', 'STRING')]
    const layer = await later.features.open({ ...meta({ epoch: 1, userId: 2 }), fields }, () => new Date())
    await layer.write((tx) => tx.update(fid!, { fields: [fields[7]!], values: ['new'] }))
    const cols = async (table: string) => (await data.pool.query(`SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1)
      AND attnum > 0 AND NOT attisdropped AND attname LIKE 'fld_%' ORDER BY attname`, [table])).rows.map((r) => r.attname)
    expect(await cols(`layer_${ID}_history`)).toEqual(await cols(`layer_${ID}`))
    expect(await cols(`layer_${ID}_history`)).toEqual(['fld_2', 'fld_3', 'fld_4', 'fld_5', 'fld_6', 'fld_7', 'fld_8', 'fld_9'])
    expect(await layer.read(async (tx) => [await tx.history!.versioning(), await tx.history!.changes({ initial: 1, target: 2,
      fidMin: fid!, fidMax: fid!, extensions: [] })])).toEqual([{ epoch: 1, latest: 2 },
      [{ action: 'feature.update', fid, vid: 2, fields: [[9, 'new']] }]])
  })

  it('keeps an attachment\'s replaced file while the history refers to it; an epoch restart deletes it', async () => {
    const data = await pgPort()
    const bytes = new Uint8Array([1, 2, 3])
    for (const id of ['b-old', 'b-new']) await data.blobs.putBlob(id, bytes)
    const layer = await data.features.open(meta({ epoch: 1, userId: 1 }), () => new Date())
    const orphans = await layer.write(async (tx) => {
      const [fid] = await tx.createMany([feature(null, [1, 1, 1, 'a', null, null, null, 0])])
      const aid = await tx.addAttachment(fid!, { name: 'f', mime_type: 'text/plain' }, file('b-old'))
      await tx.changeAttachment((await tx.attachment(fid!, aid))!, {}, file('b-new'))
      return [...tx.orphanBlobs]
    })
    expect(orphans).toEqual([])
    expect(await data.blobs.getBlob('b-old')).toBeDefined()
    await data.features.open(meta({ epoch: 2, userId: 1 }), () => new Date())
    expect([await data.blobs.getBlob('b-old'), (await data.blobs.getBlob('b-new')) !== undefined]).toEqual([undefined, true])
  })
})
