/**
 * @module classes/vector_layer/remote-link
 * A vector layer linked to a remote layer at creation:
 * `"vector_layer": {"remote": {"connection": {"id": C}, "resource": {"id": R}}}`. Before the
 * create's main write the remote layer is read (reference system, geometry type, fields); the
 * layer is created with that schema, and right after the write a first sync round pulls its
 * features and attachments. If that fails the new layer is deleted again (resource/routes).
 */
import { insufficientPermissions, validationError } from '../../core/error.ts'
import { expectObject, expectRef } from '../../core/validate.ts'
import { findSrs } from '../../geo/srs.ts'
import { FIELD_TYPES } from '../../feature/types.ts'
import { remoteClient } from '../../sync/client.ts'
import { readRemoteLayer } from '../../sync/remote-shape.ts'
import { asReadRefusal, connectionNotFound } from '../../sync/errors.ts'
import { initialState, syncHost, syncRound } from '../../sync/round.ts'
import type { Link, Replica } from '../../sync/types.ts'
import type { ResourceRef } from '../../resource/types.ts'
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

/** What linking an existing layer prepared: the link, checked against the remote layer's schema. */
export interface PreparedRelink extends Prepared {
  relink: Link
}

/**
 * Links existing layer `ref` to a remote layer (`PUT … {"vector_layer": {"remote": {…}}}`): the
 * person may use the connection (`connection.connect`), the remote layer has this layer's
 * reference system, geometry type and every field (same keyname and type). The layer's sync
 * bookkeeping starts afresh (a link made and undone before leaves marks of another remote
 * layer): every local feature is then a create that the next round pushes. 422 when the link
 * cannot be made, 502 when the remote fails; nothing changes here before the main write but
 * the bookkeeping, which means nothing while the layer is not linked.
 */
export async function prepareRelink(env: ClassEnv, replicas: { replica(ref: ResourceRef): Promise<Replica | undefined> },
  ref: ResourceRef, member: unknown, penv: PrepareEnv): Promise<PreparedRelink> {
  const m = expectObject(member, '$.vector_layer.remote')
  const connection = expectRef(m.connection, '$.vector_layer.remote.connection')
  const resource = expectRef(m.resource, '$.vector_layer.remote.resource')
  const data = ref.data as unknown as { remote?: Link; srs: number; geometry_type: string }
  if (data.remote) throw validationError(`Layer ${ref.id} is linked already (to resource ${data.remote.resource}); unlink it first - at \`$.vector_layer.remote\``)
  if (penv.may && !await penv.may(connection, 'connection', 'connect')) throw insufficientPermissions('connect', 'connection', connection)
  const creds = await env.classes.remoteConnection(connection)
  if (!creds) throw connectionNotFound(connection)
  const client = remoteClient(creds, env.platform)
  const remote = await readRemoteLayer(client, resource).catch((err: unknown) => { throw asReadRefusal(err, creds, resource) })
  const fl = remote.featureLayer
  if (!fl) throw validationError(`Remote resource ${resource} is not a feature layer - at \`$.vector_layer.remote.resource\``)
  if (Number(fl.srs?.id ?? remote.vectorLayer?.srs?.id) !== data.srs || String(fl.geometry_type ?? remote.vectorLayer?.geometry_type) !== data.geometry_type) {
    throw validationError(`Remote layer ${resource} has another reference system or geometry type than layer ${ref.id} - at \`$.vector_layer.remote.resource\``)
  }
  const link = { connection, resource }
  const replica = await replicas.replica({ ...ref, data: { ...ref.data, remote: link } })
  if (!replica) throw validationError(`Layer ${ref.id} cannot be linked - at \`$.vector_layer.remote\``)
  for (const f of replica.meta.fields) {
    if (!remote.fields.some((r) => r.keyname === f.keyname && r.datatype === f.datatype)) {
      throw validationError(`Remote layer ${resource} has no field '${f.keyname}' of type ${f.datatype} - at \`$.vector_layer.remote.resource\``)
    }
  }
  await replica.write(async (_tx, r) => {
    await r.unmapMany((await r.mappings()).map((x) => x.fid))
    for (const a of await r.attachmentMappings()) await r.unmapAttachment(a.aid)
    for (const c of await r.conflicts()) await r.removeConflict(c.id)
    for (const p of await r.problems()) await r.clearProblem(p.rfid)
    await r.setState(initialState(replica.meta, remote))
  })
  return { relink: link, discard: async () => {}, settle: () => {} }
}
