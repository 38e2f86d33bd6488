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
 * runs the remote transaction inside one of the side layer, so the table commits first and the
 * side right after (a failure of the side's commit after the table's loses only the extras'
 * change, and the request answers the error).
 */
import { operationalError } from '../../core/error.ts'
import type {
  AttachmentFields, AttachmentFile, AttachmentRow, FeatureFilter, FeatureInput, FeatureLayer, FeatureQuery, FeatureRead, FeatureRow,
  FeatureWrite, Field, LayerMeta, RowShape,
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

/** The remote writer `remote` with the extras written in the side layer's transaction `side`. */
function writer(remote: FeatureWrite, side: FeatureWrite): FeatureWrite {
  /** The side rows of remote fids seen in this transaction. */
  const known = new Map<number, number>()
  const lookup = async (fids: readonly number[]) => {
    const missing = fids.filter((f) => !known.has(f))
    for (const [r, s] of await sideFids(side, missing)) known.set(r, s)
    return fids.map((f) => known.get(f))
  }
  /** The side rows of `fids`, made where missing (one lookup and one insert for all of them). */
  const ensure = async (fids: readonly number[]): Promise<number[]> => {
    const have = await lookup(fids)
    const make = [...new Set(fids.filter((_, i) => have[i] === undefined))]
    const made = await side.createMany(make.map((r) => ({ geom: null, fields: [REMOTE_FID], values: [r] })))
    make.forEach((r, i) => known.set(r, made[i]!))
    return fids.map((f) => known.get(f)!)
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
      if (id !== undefined) await side.update(id, { fields: [], values: [], description: g.text })
    }
  }
  const attachmentRow = async (row: AttachmentRow): Promise<AttachmentRow> => ({ ...row, fid: (await ensure([row.fid]))[0]! })
  const tx: FeatureWrite = over(reader(remote, (fn) => fn(side)) as FeatureWrite, {
    get orphanBlobs() { return side.orphanBlobs },
    async create(input: FeatureInput) { return (await tx.createMany([input]))[0]! },
    async createMany(inputs: readonly FeatureInput[]) {
      const fids = await remote.createMany(inputs)
      // A new feature starts with none: extras left under its id by a row deleted outside the API go.
      for (const id of await lookup(fids)) if (id !== undefined) await side.delete(id)
      fids.forEach((f) => known.delete(f))
      await describe(fids, inputs)
      return fids
    },
    async update(fid: number, input: FeatureInput) {
      if (!await remote.update(fid, input)) return false
      await describe([fid], [input])
      return true
    },
    async delete(fid: number) {
      if (!await remote.delete(fid)) return false
      const [id] = await lookup([fid])
      if (id !== undefined) await side.delete(id)
      known.delete(fid)
      return true
    },
    async deleteAll() {
      await remote.deleteAll()
      await side.deleteAll()
      known.clear()
    },
    async addAttachment(fid: number, fields: AttachmentFields, file: AttachmentFile) {
      return side.addAttachment((await ensure([fid]))[0]!, fields, file)
    },
    async changeAttachment(row: AttachmentRow, fields: AttachmentFields, file?: AttachmentFile) {
      await side.changeAttachment(await attachmentRow(row), fields, file)
    },
    async removeAttachment(row: AttachmentRow) {
      await side.removeAttachment(await attachmentRow(row))
    },
  })
  return tx
}

/** Layer `remote` (a PostGIS table) with the attachments and descriptions of its features kept in `env`'s own storage. */
export function withExtras(env: ClassEnv, remote: FeatureLayer): FeatureLayer {
  const meta = sideMeta(remote.meta.resourceId)
  const side = () => env.data.features.open(meta, () => env.platform.now())
  return {
    ...remote,
    read: (fn) => remote.read((tx) => fn(reader(tx, async (sfn) => (await side()).read(sfn)))),
    async write(fn, actor) {
      const s = await side()
      let runs = 0
      return s.write(async (stx) => {
        // The table's transaction may have committed already: running it again would write it twice.
        if (runs++) throw operationalError('The write was interrupted; send it again.')
        return remote.write((tx) => fn(writer(tx, stx)), actor)
      }, actor)
    },
  }
}

/** Deletes the extras of layer `resourceId` (its resource's delete committed). */
export const dropExtras = (env: ClassEnv, resourceId: number) => env.data.features.drop(resourceId)
