/**
 * @module classes/spatialdb_layer/extras
 * Attachments and descriptions of a PostGIS layer's features. The original keeps them in its own
 * database keyed by the layer's fid (reference ngw-services §4.2); so do we, in the data port's
 * feature tables under the layer's resource id (a "side" layer): one row per remote feature that
 * has any, its remote fid in field `remote_fid`, and beside it the vector layers' own attachment
 * and description storage (blobs, file ids, files orphaned by a change deleted after the commit,
 * dropped with the resource). The team's table knows nothing of them.
 *
 * `withExtras` wraps the remote layer: a read touches the side layer only when attachments or
 * descriptions are asked for (tiles, counts and plain listings stay one remote query); a write
 * opens a write of the side layer only when it touches extras (a create asks the side whether
 * stale extras wait under the new ids, in a read), holds it open while the remote transaction
 * runs and commits it right after the table's (a failure of the side's commit after the table's
 * loses only the extras' change, and the request answers the error). Writes of one layer run one
 * at a time in a process (`LayerWrites`).
 */
import { operationalError } from '../../core/error.ts'
import type {
  AttachmentFields, AttachmentFile, AttachmentRow, FeatureFilter, FeatureInput, FeatureLayer, FeatureQuery, FeatureRead, FeatureRow,
  FeatureUpdate, FeatureWrite, Field, LayerMeta, RowShape, WriteActor,
} from '../../feature/types.ts'
import type { ClassEnv } from '../types.ts'

/** The side layer's one field: the remote feature's id. */
const REMOTE_FID: Field = { id: 1, keyname: 'remote_fid', display_name: 'remote_fid', datatype: 'BIGINT', typemod: null,
  label_field: false, grid_visibility: false, text_search: false, required: false, lookup_table: null }

/** The side layer of layer `resourceId`: rows without geometry, so its SRS and type are fixed. */
const sideMeta = (resourceId: number): LayerMeta => ({ resourceId, srs: 3857, geometryType: 'POINT', fields: [REMOTE_FID] })

const ID_SHAPE: RowShape = { geom: false, fields: [REMOTE_FID], label: false, description: false }

const byRemoteFid = (fids: readonly number[]): FeatureFilter =>
  ({ conditions: [{ field: REMOTE_FID, op: 'in', value: [...fids] }], filtered: true })

/** The side rows of remote features `fids` (all when absent): remote fid → side fid, in one query. */
async function sideFids(side: FeatureRead, fids?: readonly number[]): Promise<Map<number, number>> {
  if (fids && !fids.length) return new Map()
  const rows = await side.list(fids ? { filter: byRemoteFid(fids) } : {}, ID_SHAPE)
  return new Map(rows.map((r) => [Number(r.values[0]), r.fid]))
}

/** Attachments of the side rows `ids` (remote → side fid), keyed and marked with the remote fids. */
async function attachmentsOf(side: FeatureRead, ids: Map<number, number>): Promise<Map<number, AttachmentRow[]>> {
  const out = new Map<number, AttachmentRow[]>()
  if (!ids.size) return out
  const remoteOf = new Map([...ids].map(([r, s]) => [s, r]))
  for (const [s, rows] of await side.attachments([...remoteOf.keys()])) {
    const r = remoteOf.get(s)!
    out.set(r, rows.map((a) => ({ ...a, fid: r })))
  }
  return out
}

/** `rows` with their descriptions, read from the side layer in one query. */
async function described(side: FeatureRead, rows: FeatureRow[]): Promise<FeatureRow[]> {
  const fids = rows.map((r) => r.fid)
  const found = fids.length ? await side.list({ filter: byRemoteFid(fids) }, { ...ID_SHAPE, description: true }) : []
  const text = new Map(found.map((r) => [Number(r.values[0]), r.description ?? null]))
  return rows.map((r) => ({ ...r, description: text.get(r.fid) ?? null }))
}

/**
 * An object over `base` with `props` (getters kept as getters): `base`'s other members, and
 * the remote reader's optional fast paths (`inBox`, and any to come) with them, pass through.
 */
const over = <T extends object>(base: T, props: object): T => Object.create(base, Object.getOwnPropertyDescriptors(props)) as T

/**
 * The remote reader `remote` with its attachment and description reads served by the side
 * layer (`side()` opens a read of it, once per call).
 */
function reader(remote: FeatureRead, side: <T>(fn: (s: FeatureRead) => Promise<T>) => Promise<T>): FeatureRead {
  return over(remote, {
    async list(q: FeatureQuery, shape: RowShape): Promise<FeatureRow[]> {
      const rows = await remote.list(q, shape)
      return shape.description ? side((s) => described(s, rows)) : rows
    },
    attachments: (fids?: number[]) => side(async (s) => attachmentsOf(s, await sideFids(s, fids))),
    attachment: (fid: number, aid: number) => side(async (s) => {
      const id = (await sideFids(s, [fid])).get(fid)
      const row = id === undefined ? undefined : await s.attachment(id, aid)
      return row && { ...row, fid }
    }),
  })
}

/**
 * The side layer's part of one write, opened only when the write touches extras: a plain
 * feature edit stays one remote transaction (a side transaction, even an empty one, costs a
 * durable commit). `tx()` opens the side write on first use and holds it until `finish`.
 */
interface SideWrite {
  /** The side write, opened on first use. */
  tx(): Promise<FeatureWrite>
  /** The side write if it was opened. */
  readonly opened: FeatureWrite | undefined
  /** The side rows of remote fids `fids`, read in the side write if open, else in a read of its own. */
  find(fids: readonly number[]): Promise<Map<number, number>>
}

/** The remote writer `remote` with the extras written in the side layer's write `side`. */
function writer(remote: FeatureWrite, side: SideWrite): FeatureWrite {
  /** The side rows of remote fids seen in this write. */
  const known = new Map<number, number>()
  const lookup = async (fids: readonly number[]) => {
    const missing = fids.filter((f) => !known.has(f))
    if (missing.length) for (const [r, s] of await side.find(missing)) known.set(r, s)
    return fids.map((f) => known.get(f))
  }
  /** The side rows of `fids`, made where missing (one lookup and one insert for all of them). */
  const ensure = async (fids: readonly number[]): Promise<number[]> => {
    const have = await lookup(fids)
    const make = [...new Set(fids.filter((_, i) => have[i] === undefined))]
    if (make.length) {
      const made = await (await side.tx()).createMany(make.map((r) => ({ geom: null, fields: [REMOTE_FID], values: [r] })))
      make.forEach((r, i) => known.set(r, made[i]!))
    }
    return fids.map((f) => known.get(f)!)
  }
  /** Deletes the side rows of `fids` (their attachments and descriptions), where there are any. */
  const forget = async (fids: readonly number[]) => {
    for (const [i, id] of (await lookup(fids)).entries()) {
      if (id === undefined) continue
      await (await side.tx()).delete(id)
      known.delete(fids[i]!)
    }
  }
  /** Sets or clears the descriptions the inputs give (`undefined` ones are left as they are). */
  const describe = async (fids: readonly number[], inputs: readonly FeatureInput[]) => {
    const given = fids.flatMap((fid, i) => (inputs[i]!.description === undefined ? [] : [{ fid, text: inputs[i]!.description || null }]))
    if (!given.length) return
    // A row is made only for a description to keep; clearing one that has none changes nothing.
    const ids = await ensure(given.filter((g) => g.text !== null).map((g) => g.fid))
    const cleared = await lookup(given.filter((g) => g.text === null).map((g) => g.fid))
    let k = 0, j = 0
    for (const g of given) {
      const id = g.text === null ? cleared[j++] : ids[k++]
      if (id !== undefined) await (await side.tx()).update(id, { fields: [], values: [], description: g.text })
    }
  }
  const attachmentRow = async (row: AttachmentRow): Promise<AttachmentRow> => ({ ...row, fid: (await ensure([row.fid]))[0]! })
  // Reads of extras inside the write see its own changes once the side write is open.
  const tx: FeatureWrite = over(reader(remote, async (fn) => fn(side.opened ?? await side.tx())) as FeatureWrite, {
    get orphanBlobs() { return side.opened?.orphanBlobs ?? [] },
    async create(input: FeatureInput) { return (await tx.createMany([input]))[0]! },
    async createMany(inputs: readonly FeatureInput[]) {
      const fids = await remote.createMany(inputs)
      // A new feature starts with none: extras left under its id by a row deleted outside the API go.
      await forget(fids)
      await describe(fids, inputs)
      return fids
    },
    async update(fid: number, input: FeatureInput) {
      if (!await remote.update(fid, input)) return false
      await describe([fid], [input])
      return true
    },
    // Without it the remote's own `updateMany` (through `over`) would drop the descriptions of a batch.
    async updateMany(items: readonly FeatureUpdate[]) {
      const done = await remote.updateMany(items)
      const kept = items.filter((_, i) => done[i])
      await describe(kept.map((it) => it.fid), kept.map((it) => it.input))
      return done
    },
    async delete(fid: number) {
      if (!await remote.delete(fid)) return false
      await forget([fid])
      return true
    },
    async deleteAll() {
      await remote.deleteAll()
      await (await side.tx()).deleteAll()
      known.clear()
    },
    async addAttachment(fid: number, fields: AttachmentFields, file: AttachmentFile) {
      const [id] = await ensure([fid])
      return (await side.tx()).addAttachment(id!, fields, file)
    },
    async changeAttachment(row: AttachmentRow, fields: AttachmentFields, file?: AttachmentFile) {
      await (await side.tx()).changeAttachment(await attachmentRow(row), fields, file)
    },
    async removeAttachment(row: AttachmentRow) {
      await (await side.tx()).removeAttachment(await attachmentRow(row))
    },
  })
  return tx
}

/**
 * Opens a write of `layer` that waits, once `fn`'s part is done, for `finish`: committed when it
 * is called without an error, rolled back with one. Its `fn` may not run twice (the data port
 * retries a conflict that way): by then the table has committed, so that is refused (503).
 */
function heldWrite(layer: FeatureLayer, actor: WriteActor | undefined) {
  let release!: (err?: unknown) => void
  const gate = new Promise<void>((resolve, reject) => { release = (err) => (err === undefined ? resolve() : reject(err)) })
  // Released with an error before the side's `fn` waits on it (its queue was busy): not an unhandled rejection.
  gate.catch(() => undefined)
  let runs = 0
  let opened: FeatureWrite | undefined
  let committed!: Promise<void>
  const tx = new Promise<FeatureWrite>((resolve, reject) => {
    committed = layer.write(async (stx) => {
      if (runs++) throw operationalError('The write was interrupted; send it again.')
      opened = stx
      resolve(stx)
      await gate
    }, actor)
    committed.catch(reject)
  })
  return {
    tx,
    get opened() { return opened },
    async finish(err?: unknown) {
      release(err)
      try {
        await committed
      } catch (e) {
        if (err === undefined) throw e
      }
    },
  }
}

/**
 * One write at a time per layer (in this process): a write takes the table's row locks and, when
 * it touches extras, the side layer's write after them; two writes interleaving those in opposite
 * orders would wait on each other until the statement timeout. The original's order (side, then
 * table) would cost every write a side transaction.
 */
export class LayerWrites {
  readonly #tails = new Map<number, Promise<unknown>>()

  run<T>(id: number, fn: () => Promise<T>): Promise<T> {
    const out = (this.#tails.get(id) ?? Promise.resolve()).then(fn, fn)
    const tail = out.catch(() => undefined)
    this.#tails.set(id, tail)
    void tail.then(() => { if (this.#tails.get(id) === tail) this.#tails.delete(id) })
    return out
  }
}

/**
 * Layer `remote` (a PostGIS table) with the attachments and descriptions of its features kept in
 * `env`'s own storage; its writes one at a time through `writes`.
 */
export function withExtras(env: ClassEnv, remote: FeatureLayer, writes: LayerWrites): FeatureLayer {
  const meta = sideMeta(remote.meta.resourceId)
  const sideLayer = () => env.data.features.open(meta, () => env.platform.now())
  return {
    ...remote,
    read: (fn) => remote.read((tx) => fn(reader(tx, async (sfn) => (await sideLayer()).read(sfn)))),
    write: (fn, actor) => writes.run(meta.resourceId, async () => {
      let held: ReturnType<typeof heldWrite> | undefined
      const side: SideWrite = {
        tx: async () => (held ??= heldWrite(await sideLayer(), actor)).tx,
        get opened() { return held?.opened },
        find: async (fids) => (held ? sideFids(await held.tx, fids) : (await sideLayer()).read((s) => sideFids(s, fids))),
      }
      let out
      try {
        out = await remote.write((tx) => fn(writer(tx, side)), actor)
      } catch (err) {
        await held?.finish(err)
        throw err
      }
      // The table has committed; the side commits right after.
      await held?.finish()
      return out
    }),
  }
}

/** Deletes the extras of layer `resourceId` (its resource's delete committed). */
export const dropExtras = (env: ClassEnv, resourceId: number) => env.data.features.drop(resourceId)
