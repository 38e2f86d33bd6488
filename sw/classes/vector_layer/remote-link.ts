/**
 * @module classes/vector_layer/remote-link
 * A vector layer linked to a remote layer at creation:
 * `"vector_layer": {"remote": {"connection": {"id": C}, "resource": {"id": R}}}`. Before the
 * create's main write the remote layer is read (reference system, geometry type, fields); the
 * layer is created with that schema, and right after the write a first sync round pulls its
 * features and attachments. If that fails the new layer is deleted again (resource/routes).
 */
import { validationError } from '../../core/error.ts'
import { expectObject, expectRef } from '../../core/validate.ts'
import { findSrs } from '../../geo/srs.ts'
import { FIELD_TYPES } from '../../feature/types.ts'
import { remoteClient } from '../../sync/client.ts'
import { readRemoteLayer } from '../../sync/remote-shape.ts'
import { asReadRefusal, connectionNotFound } from '../../sync/errors.ts'
import { syncHost, syncRound } from '../../sync/round.ts'
import type { Link } from '../../sync/types.ts'
import type { ClassEnv, Prepared, PrepareEnv } from '../types.ts'

export interface PreparedLink extends Prepared {
  link: Link
  srs: number
  geometryType: string
  /** The remote's fields, as a new layer's field list. */
  fields: Record<string, unknown>[]
}

type RemoteField = { keyname: string; display_name?: string; datatype: string; label_field?: boolean
  grid_visibility?: boolean; text_search?: boolean }

/** Reads the remote layer `member` names; 422 when it cannot be linked, 502 when the remote fails. */
export async function prepareLink(env: ClassEnv, member: unknown, geometryTypes: readonly string[],
  penv: PrepareEnv): Promise<PreparedLink> {
  const m = expectObject(member, '$.vector_layer.remote')
  const connection = expectRef(m.connection, '$.vector_layer.remote.connection')
  const resource = expectRef(m.resource, '$.vector_layer.remote.resource')
  const creds = await env.classes.remoteConnection(connection)
  if (!creds) throw connectionNotFound(connection)
  const client = remoteClient(creds, env.platform)
  // Linking needs read access there: a refusal names the server and the account (422), nothing is made.
  const { featureLayer: fl, vectorLayer: vl, fields: remoteFields } = await readRemoteLayer(client, resource)
    .catch((err: unknown) => { throw asReadRefusal(err, creds, resource) })
  if (!fl) throw validationError(`Remote resource ${resource} is not a feature layer - at \`$.vector_layer.remote.resource\``)
  const srs = Number(fl.srs?.id ?? vl?.srs?.id)
  const geometryType = String(fl.geometry_type ?? vl?.geometry_type)
  if (!findSrs(srs)) throw validationError(`The remote layer's reference system EPSG:${srs} is not known here.`)
  if (!geometryTypes.includes(geometryType)) throw validationError(`The remote layer's geometry type ${geometryType} is not supported here.`)
  const fields = (remoteFields as RemoteField[]).map((f) => {
    if (!(FIELD_TYPES as readonly string[]).includes(f.datatype)) {
      throw validationError(`The remote field '${f.keyname}' has the type ${f.datatype}, which this server does not keep.`)
    }
    return { keyname: f.keyname, display_name: f.display_name ?? f.keyname, datatype: f.datatype, label_field: !!f.label_field,
      grid_visibility: f.grid_visibility ?? true, text_search: f.text_search ?? true }
  })
  return {
    link: { connection, resource }, srs, geometryType, fields,
    // Nothing is made before the create's write: nothing to undo or release.
    discard: async () => {},
    settle: () => {},
    // The first download, its progress reported as `pulling` (ingest/progress); its failure undoes the create.
    afterCommit: async (id) => {
      penv.progress.stage('pulling')
      await syncRound(env.classes, syncHost(env.platform, env.data), id, { rethrow: true, onProgress: (p) => penv.progress.done(p.done) })
    },
  }
}
