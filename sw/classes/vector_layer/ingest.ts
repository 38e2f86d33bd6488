/**
 * @module classes/vector_layer/ingest
 * A vector layer from a file, as one transaction. Before the resource exists: GDAL converts
 * the file (`ingest/vector-convert`), the geometry type and fields are decided
 * (`ingest/vector-plan`), the resource's and fields' ids are reserved, and the layer's
 * database is built under its final name, every feature checked (`ingest-load`). Only then
 * does the create's main write record the resource and its fields. Until that write the new
 * database belongs to no resource: a refused file writes none, a failure deletes it, and a
 * worker stopped in between leaves it to the layer sweep of the next start (the ingest holds
 * it meanwhile, `ingest/pending`). Nobody ever sees a half-made layer.
 */
import type { Field, FieldType } from '../../feature/types.ts'
import type { Prepared, PrepareEnv } from '../../resource/class.ts'
import { convertSource } from '../../ingest/vector-convert.ts'
import { decideGeometryType, explorer, fidColumn, loaderOptions, planFields } from '../../ingest/vector-plan.ts'
import { memberSource, memberSrs } from '../../ingest/member.ts'
import type { ClassEnv } from '../types.ts'

/** A layer database built and saved, waiting for its resource row. */
export interface PreparedLayer extends Prepared {
  resourceId: number
  srs: number
  geometryType: string
  fields: Field[]
  count: number
}

const newField = (id: number, keyname: string, datatype: FieldType): Field => ({ id, keyname, display_name: keyname,
  datatype, typemod: null, label_field: false, grid_visibility: true, text_search: true, required: false, lookup_table: null })

/**
 * Builds the database of a vector layer from the upload named in `member.source`, with the
 * loader options in `member`. Throws a 422 naming the file (and feature and field) for
 * anything the spec refuses; leaves nothing behind when it throws.
 */
export async function prepareVectorLayer(env: Pick<ClassEnv, 'platform' | 'data' | 'gpkgSources'>, member: Record<string, unknown>, { progress, signal }: PrepareEnv): Promise<PreparedLayer> {
  const { platform, data, gpkgSources } = env
  const srs = memberSrs(member, '$.vector_layer')
  const opts = loaderOptions(member)
  const source = await memberSource(env, member, '$.vector_layer')
  // Its own stage: GDAL starts on first use in a worker's (or process's) life, and that start is
  // most of a small file's time (docs/benchmarks.md, "Import through the app").
  progress.stage('gdal')
  const gdal = await platform.gdal()
  signal?.throwIfAborted()
  const conv = await gpkgSources.open(await convertSource(gdal, await source.read(), srs, opts.sourceLayer, (s) => progress.stage(s, null)))
  try {
    let geometryType: string
    let fid: string | undefined
    let planned: ReturnType<typeof planFields>
    try {
      const ex = explorer(conv)
      try {
        geometryType = decideGeometryType(conv.layer.geometryType, opts, ex.next, conv.file)
      } finally {
        ex.close()
      }
      fid = fidColumn(conv, opts)
      planned = planFields(conv.layer, conv.file, fid, conv.foreignEncoding)
    } finally {
      // The layer's connection takes the converted features from here on.
      conv.planned()
    }
    const { resourceId, firstField } = await data.unitOfWork(async (tx) => ({
      resourceId: await tx.resources.reserveIds(1), firstField: await tx.fields.reserveIds(planned.length) }))
    const fields = planned.map((f, i) => newField(firstField + i, f.keyname, f.datatype))
    const meta = { resourceId, srs, geometryType, fields }
    const { count, settle } = await data.features.load(conv, { file: conv.file, srs, meta, fields: planned, fid, opts }, progress, signal)
    const discard = async () => { await data.features.drop(resourceId).catch(() => undefined) }
    return { resourceId, srs, geometryType, fields, count, settle, discard }
  } finally {
    conv.free()
  }
}
