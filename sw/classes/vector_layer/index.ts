/**
 * @module classes/vector_layer
 * Vector layers: a reference system, a geometry type and fields in the main database, and
 * the features in the layer's own GeoPackage-shaped database (`layers.ts`), served to the
 * feature component through the feature-layer capability.
 */
import { validationError } from '../../core/error.ts'
import { expectKind, expectObject } from '../../core/validate.ts'
import { memberSrs } from '../../ingest/member.ts'
import { GEOMETRY_TYPES } from '../../feature/types.ts'
import type { ClassContext, ClassData, ClassFactory, WriteContext } from '../types.ts'
import { applyFields, insertFields } from '../../feature/fields-member.ts'
import { CLASS, LayerStore, type LayerData } from './layers.ts'
import { prepareVectorLayer, type PreparedLayer } from './ingest.ts'
import { versioningOf } from './versioning-member.ts'
import { prepareLink, prepareRelink, type PreparedLink, type PreparedRelink } from './remote-link.ts'


function geometryTypeOf(v: unknown, path: string): string {
  const s = expectKind<string>('str', v, path)
  if (!(GEOMETRY_TYPES as readonly string[]).includes(s)) {
    throw validationError(`Invalid geometry type '${s}'; expected one of ${GEOMETRY_TYPES.join(', ')} - at \`${path}\``)
  }
  return s
}

/** The `feature_layer` member: fields, and versioning on or off (a new layer's is on). */
async function applyFeatureLayer(ctx: WriteContext, id: number, member: unknown, data: LayerData, creating: boolean): Promise<LayerData> {
  const m = member === undefined ? {} : expectObject(member, '$.feature_layer')
  if (m.fields !== undefined) await applyFields(ctx.tx, id, m.fields, '$.feature_layer.fields', false)
  const versioning = await versioningOf(ctx.tx, m.versioning, data.versioning, creating, ctx.user.id)
  // Sync tells local changes by their versions: a linked layer keeps them.
  if (data.remote && !versioning?.enabled) throw validationError('A layer linked to a remote layer keeps versions - at `$.feature_layer.versioning`')
  return { ...data, versioning }
}

/**
 * The layer's data after a change of its link: `null` unlinks it (its bookkeeping stays until
 * a next link starts it afresh), a link is what `prepareRelink` checked.
 */
function relinked(prepared: unknown, member: unknown, data: LayerData): LayerData {
  if (member === null) {
    const { remote: _unlinked, ...rest } = data
    return rest
  }
  const link = (prepared as PreparedRelink | undefined)?.relink
  if (!link) throw validationError('Expected {connection: {id}, resource: {id}} or null - at `$.vector_layer.remote`')
  return { ...data, remote: link }
}

export const vectorLayer: ClassFactory = (env) => {
  const layers = new LayerStore(env)
  // The members of a page of layers; their fields in one query (a listing's, or one layer's).
  const serializeLayers = async (ctx: ClassContext, items: ReadonlyArray<{ id: number; data: ClassData }>) => {
    const fields = await ctx.tx.fields.list(items.map((it) => it.id))
    return items.map(({ id, data: raw }) => {
      const data = raw as unknown as LayerData
      const srs = { id: data.srs }
      const v = data.versioning
      return {
        feature_layer: { srs, geometry_type: data.geometry_type, fields: fields.get(id) ?? [],
          versioning: v?.enabled ? { enabled: true, epoch: v.epoch, latest: layers.latest(id) || 1 } : { enabled: false },
          aggregations: [] },
        vector_layer: { srs, geometry_type: data.geometry_type,
          ...(data.remote ? { remote: { connection: { id: data.remote.connection }, resource: { id: data.remote.resource } } } : {}) },
      }
    })
  }
  return {
    identity: CLASS,
    label: 'Vector layer',
    order: 60,
    category: 'layers_and_styles',
    scopes: ['data', 'resource'],
    // The original's list and order (its interface registry's). IVersionableFeatureLayer is the
    // class's whether versioning is on or off, as there (`feature_layer.versioning` tells which).
    interfaces: ['IBboxLayer', 'IFilterableFeatureLayer', 'IFeatureLayer', 'IFieldEditableFeatureLayer',
      'IGeometryEditableFeatureLayer', 'IWritableFeatureLayer', 'IVersionableFeatureLayer'],
    members: ['vector_layer', 'feature_layer'],
    acceptsParent: (p) => p === 'resource_group',

    // A layer from a file (`source`): GDAL reads it and the layer's database is built before the
    // create's main write (ingest.ts), which then only records the resource and its fields.
    // A layer linked to a remote layer (`remote`): its schema is read from there before the
    // create, its features are pulled once the create has committed (remote-link.ts).
    async prepare(penv, members) {
      if (members.vector_layer === undefined) return undefined
      const m = expectObject(members.vector_layer, '$.vector_layer')
      // An existing layer linked to a remote layer (`remote`; `null` unlinks it, in `update`).
      if (penv.resourceId !== undefined) {
        const ref = m.remote ? await env.classes.ref(penv.resourceId) : undefined
        return ref ? prepareRelink(env, layers, ref, m.remote, penv) : undefined
      }
      if (m.remote !== undefined) {
        if (m.source !== undefined && m.source !== null) {
          throw validationError('A layer is either linked to a remote layer or made from a file - at `$.vector_layer`')
        }
        return prepareLink(env, m.remote, GEOMETRY_TYPES, penv)
      }
      if (m.source === undefined || m.source === null) return undefined
      return prepareVectorLayer(env, m, penv)
    },

    async create(ctx, id, members) {
      if (members.vector_layer === undefined) throw validationError('Vector layer member is required - at `$.vector_layer`')
      const m = expectObject(members.vector_layer, '$.vector_layer')
      if (m.remote !== undefined) {
        const p = ctx.prepared as PreparedLink
        await applyFields(ctx.tx, id, p.fields, '$.vector_layer.fields', true)
        return (await applyFeatureLayer(ctx, id, members.feature_layer,
          { srs: p.srs, geometry_type: p.geometryType, remote: p.link }, true)) as unknown as ClassData
      }
      if (m.source !== undefined && m.source !== null) {
        const p = ctx.prepared as PreparedLayer
        await insertFields(ctx.tx, id, p.fields)
        return (await applyFeatureLayer(ctx, id, members.feature_layer,
          { srs: p.srs, geometry_type: p.geometryType }, true)) as unknown as ClassData
      }
      const srs = memberSrs(m, '$.vector_layer')
      if (m.geometry_type === undefined) throw validationError('Field `geometry_type` is required - at `$.vector_layer`')
      const data: LayerData = { srs,
        geometry_type: geometryTypeOf(m.geometry_type, '$.vector_layer.geometry_type') }
      await applyFields(ctx.tx, id, m.fields ?? [], '$.vector_layer.fields', true)
      return (await applyFeatureLayer(ctx, id, members.feature_layer, data, true)) as unknown as ClassData
    },

    async update(ctx, id, members, data) {
      if (members.vector_layer !== undefined) {
        const m = expectObject(members.vector_layer, '$.vector_layer')
        if (m.srs !== undefined && memberSrs(m, '$.vector_layer') !== data.srs) {
          throw validationError('The reference system of an existing layer cannot be changed - at `$.vector_layer.srs`')
        }
        if (m.geometry_type !== undefined && geometryTypeOf(m.geometry_type, '$.vector_layer.geometry_type') !== data.geometry_type) {
          throw validationError('The geometry type of an existing layer cannot be changed - at `$.vector_layer.geometry_type`')
        }
        if (m.fields !== undefined) await applyFields(ctx.tx, id, m.fields, '$.vector_layer.fields', false)
        if (m.remote !== undefined) return (await applyFeatureLayer(ctx, id, members.feature_layer, relinked(ctx.prepared, m.remote, data as unknown as LayerData), false)) as unknown as ClassData
      }
      return (await applyFeatureLayer(ctx, id, members.feature_layer, data as unknown as LayerData, false)) as unknown as ClassData
    },

    serialize: async (ctx, id, raw) => (await serializeLayers(ctx, [{ id, data: raw }]))[0]!,
    serializeMany: serializeLayers,

    load: (ids) => layers.load(ids),

    // The layer's own database is deleted once the main transaction has committed.
    remove: (_ctx, id) => () => layers.drop(id),

    capabilities: { featureLayer: layers, replica: { open: (ref) => layers.replica(ref), linked: () => layers.linked() } },
  }
}
