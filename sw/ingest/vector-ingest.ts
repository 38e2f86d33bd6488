/**
 * @module ingest/vector-ingest
 * A vector layer from a file, as one transaction. Before the resource exists: GDAL converts
 * the file (`vector-convert`), the geometry type and fields are decided (`vector-plan`), the
 * resource's and fields' ids are reserved, and the layer's database is built under its final
 * name, feature by feature checked (`vector-load`). Only then does the caller create the
 * resource row, in one main-database write. Until that write the new database belongs to no
 * resource: a refused file or a failure deletes it, and a worker stopped in between leaves it
 * to the layer sweep of the next start. Nobody ever sees a half-made layer.
 */
import { validationError } from '../core/error.ts'
import { expectObject, expectRef } from '../core/validate.ts'
import { findSrs } from '../geo/srs.ts'
import type { Services } from '../services.ts'
import { Database } from '../store/database.ts'
import type { Field } from '../classes/vector_layer/fields.ts'
import { imageName } from '../feature/layers.ts'
import { readUpload, resolveUploadRef } from '../upload/service.ts'
import { convertSource, freeImage } from './vector-convert.ts'
import { decideGeometryType, loaderOptions, planFields } from './vector-plan.ts'
import { explorer, fidColumn, loadFeatures } from './vector-load.ts'
import { holdPending } from './pending.ts'
import { reserveIds } from './reserve.ts'
import type { Progress } from './progress.ts'
import type { Prepared } from '../classes/types.ts'

/** A layer database built and saved, waiting for its resource row. */
export interface PreparedLayer extends Prepared {
  resourceId: number
  srs: number
  geometryType: string
  fields: Field[]
  count: number
  /** Forgets the hold on the image once the resource row is committed (or the image is gone). */
  settle(): void
  /** Deletes the built database (the resource could not be created after all). */
  discard(): Promise<void>
}

/** The `srs` of a member, checked against the systems the server knows. */
export function memberSrs(m: Record<string, unknown>, path: string): number {
  if (m.srs === undefined) throw validationError(`Field \`srs\` is required - at \`${path}\``)
  const id = expectRef(m.srs, `${path}.srs`)
  if (!findSrs(id)) throw validationError(`Spatial reference system id = ${id} is not known - at \`${path}.srs.id\``, { srs_id: id })
  return id
}

const newField = (id: number, keyname: string, datatype: Field['datatype']): Field => ({ id, keyname, display_name: keyname,
  datatype, typemod: null, label_field: false, grid_visibility: true, text_search: true, required: false, lookup_table: null })

/**
 * Builds the database of a vector layer from the upload named in `member.source`, with the
 * loader options in `member`. Throws a 422 naming the file (and feature and field) for
 * anything the spec refuses; leaves nothing behind when it throws.
 */
export async function prepareVectorLayer(services: Services, member: Record<string, unknown>, progress: Progress,
  signal?: AbortSignal): Promise<PreparedLayer> {
  const { platform, main } = services
  const srs = memberSrs(member, '$.vector_layer')
  const opts = loaderOptions(member)
  const ref = expectObject(member.source, '$.vector_layer.source')
  const upload = await resolveUploadRef(services, ref, '$.vector_layer.source')
  const encoding = typeof ref.encoding === 'string' ? ref.encoding : undefined
  const [gdal, sqlite] = await Promise.all([platform.gdal(), platform.sqlite()])
  signal?.throwIfAborted()
  // The file's bytes are referenced by GDAL's job only: gone once it has converted them.
  const conv = await convertSource(gdal, sqlite, { name: upload.name ?? '', bytes: await readUpload(services, upload.id), encoding },
    srs, opts, (s) => progress.stage(s, null))
  try {
    let geometryType: string
    let fid: string | undefined
    let planned: ReturnType<typeof planFields>
    try {
      const ex = explorer(conv.db)
      try {
        geometryType = decideGeometryType(conv.layer.geometryType, opts, ex.next, conv.file)
      } finally {
        ex.close()
      }
      fid = fidColumn(conv, opts)
      planned = planFields(conv.layer, conv.file, fid)
    } finally {
      // The layer's connection takes the converted features from here on.
      conv.db.close()
    }
    const { resourceId, firstField } = await main.write((db) => ({
      resourceId: reserveIds(db, 'resource', 1), firstField: reserveIds(db, 'layer_field', planned.length) }))
    const fields = planned.map((f, i) => newField(firstField + i, f.keyname, f.datatype))
    const name = imageName(resourceId)
    const release = holdPending(name)
    const discard = async () => { await platform.store.deleteImage(name).catch(() => undefined) }
    try {
      const meta = { resourceId, srs, geometryType, fields }
      // The schema is made by the one write that fills it: a refused file writes nothing.
      const layer = await Database.open(sqlite, platform.store, name, () => {})
      let count: number
      try {
        ({ count } = await loadFeatures(sqlite, layer, conv, { file: conv.file, srs, meta, fields: planned, fid, opts }, progress, signal))
      } finally {
        await layer.close()
      }
      return { resourceId, srs, geometryType, fields, count, settle: release, discard }
    } catch (err) {
      await discard()
      release()
      throw err
    }
  } finally {
    freeImage(sqlite, conv.image)
  }
}
