/**
 * @module classes/vector_layer
 * Vector layers: a reference system, a geometry type and fields in the main database, and
 * the features in the layer's own GeoPackage-shaped database (`layers.ts`), served to the
 * feature component through the feature-layer capability.
 */
import { validationError } from '../../core/error.ts'
import { expectKind, expectObject, expectRef } from '../../core/validate.ts'
import { findSrs } from '../../geo/srs.ts'
import type { ClassContext, ClassData, ClassFactory } from '../types.ts'
import { applyFields, listFields } from './fields.ts'
import { CLASS, LayerStore, type LayerData } from './layers.ts'
import { versioningOf } from './versioning-member.ts'
import { prepareLink, type PreparedLink } from './remote-link.ts'
import { isObject } from '../../core/http.ts'

export const GEOMETRY_TYPES = ['POINT', 'LINESTRING', 'POLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON',
  'POINTZ', 'LINESTRINGZ', 'POLYGONZ', 'MULTIPOINTZ', 'MULTILINESTRINGZ', 'MULTIPOLYGONZ'] as const

function srsOf(v: unknown, path: string): number {
  const id = expectRef(v, path)
  if (!findSrs(id)) throw validationError(`Spatial reference system id = ${id} is not known - at \`${path}.id\``, { srs_id: id })
  return id
}

function geometryTypeOf(v: unknown, path: string): string {
  const s = expectKind<string>('str', v, path)
  if (!(GEOMETRY_TYPES as readonly string[]).includes(s)) {
    throw validationError(`Invalid geometry type '${s}'; expected one of ${GEOMETRY_TYPES.join(', ')} - at \`${path}\``)
  }
  return s
}

/** The `feature_layer` member: fields, and versioning on or off (a new layer's is on). */
function applyFeatureLayer(ctx: ClassContext, id: number, member: unknown, data: LayerData, creating: boolean): LayerData {
  const m = member === undefined ? {} : expectObject(member, '$.feature_layer')
  if (m.fields !== undefined) applyFields(ctx.db, id, m.fields, '$.feature_layer.fields', false)
  const versioning = versioningOf(ctx.db, m.versioning, data.versioning, creating)
  // Sync tells local changes by their versions: a linked layer keeps them.
  if (data.remote && !versioning?.enabled) throw validationError('A layer linked to a remote layer keeps versions - at `$.feature_layer.versioning`')
  return { ...data, versioning }
}

export const vectorLayer: ClassFactory = (env) => {
  const layers = new LayerStore(env)
  return {
    identity: CLASS,
    label: 'Vector layer',
    order: 60,
    category: 'layer',
    scopes: ['data', 'resource'],
    interfaces: ['IFeatureLayer', 'IWritableFeatureLayer', 'IFieldEditableFeatureLayer',
      'IGeometryEditableFeatureLayer', 'IFilterableFeatureLayer', 'IBboxLayer'],
    members: ['vector_layer', 'feature_layer'],
    acceptsParent: (p) => p === 'resource_group',

    // A layer linked to a remote layer: its schema is read from there before the create.
    async prepare(penv, members) {
      const m = members.vector_layer
      if (penv.resourceId !== undefined || !isObject(m) || m.remote === undefined) return undefined
      return prepareLink(env, m.remote, GEOMETRY_TYPES)
    },

    create(ctx, id, members) {
      if (members.vector_layer === undefined) throw validationError('Vector layer member is required - at `$.vector_layer`')
      const m = expectObject(members.vector_layer, '$.vector_layer')
      if (m.remote !== undefined) {
        const p = ctx.prepared as PreparedLink
        applyFields(ctx.db, id, p.fields, '$.vector_layer.fields', true)
        return applyFeatureLayer(ctx, id, members.feature_layer,
          { srs: p.srs, geometry_type: p.geometryType, remote: p.link }, true) as unknown as ClassData
      }
      if (m.source !== undefined) {
        throw validationError('Creating a vector layer from a file is not available yet; create an empty layer with fields.',
          { location: ['body', 'vector_layer', 'source'] })
      }
      if (m.srs === undefined) throw validationError('Field `srs` is required - at `$.vector_layer`')
      if (m.geometry_type === undefined) throw validationError('Field `geometry_type` is required - at `$.vector_layer`')
      const data: LayerData = { srs: srsOf(m.srs, '$.vector_layer.srs'),
        geometry_type: geometryTypeOf(m.geometry_type, '$.vector_layer.geometry_type') }
      applyFields(ctx.db, id, m.fields ?? [], '$.vector_layer.fields', true)
      return applyFeatureLayer(ctx, id, members.feature_layer, data, true) as unknown as ClassData
    },

    update(ctx, id, members, data) {
      if (members.vector_layer !== undefined) {
        const m = expectObject(members.vector_layer, '$.vector_layer')
        if (m.srs !== undefined && srsOf(m.srs, '$.vector_layer.srs') !== data.srs) {
          throw validationError('The reference system of an existing layer cannot be changed - at `$.vector_layer.srs`')
        }
        if (m.geometry_type !== undefined && geometryTypeOf(m.geometry_type, '$.vector_layer.geometry_type') !== data.geometry_type) {
          throw validationError('The geometry type of an existing layer cannot be changed - at `$.vector_layer.geometry_type`')
        }
        if (m.fields !== undefined) applyFields(ctx.db, id, m.fields, '$.vector_layer.fields', false)
        if (m.remote !== undefined) throw validationError('A layer is linked when it is created - at `$.vector_layer.remote`')
      }
      return applyFeatureLayer(ctx, id, members.feature_layer, data as unknown as LayerData, false) as unknown as ClassData
    },

    serialize(ctx, id, raw) {
      const data = raw as unknown as LayerData
      const srs = { id: data.srs }
      const v = data.versioning
      return {
        feature_layer: { srs, geometry_type: data.geometry_type, fields: listFields(ctx.db, id),
          versioning: v?.enabled ? { enabled: true, epoch: v.epoch, latest: layers.latest(id) || 1 } : { enabled: false },
          aggregations: [] },
        vector_layer: { srs, geometry_type: data.geometry_type,
          ...(data.remote ? { remote: { connection: { id: data.remote.connection }, resource: { id: data.remote.resource } } } : {}) },
      }
    },

    load: (ids) => layers.load(ids),

    // The layer's own database is deleted once the main transaction has committed.
    remove: (_ctx, id) => () => layers.drop(id),

    capabilities: { featureLayer: layers, replica: { open: (id) => layers.replica(id), linked: () => layers.linked() } },
  }
}
