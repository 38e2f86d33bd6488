/**
 * @module classes/vector_layer
 * Vector layers: a reference system, a geometry type and fields in the main database, and
 * the features in the layer's own GeoPackage-shaped database (`layers.ts`), served to the
 * feature component through the feature-layer capability.
 */
import { validationError } from '../../core/error.ts'
import { expectKind, expectObject } from '../../core/validate.ts'
import { memberSrs } from '../../ingest/member.ts'
import type { ClassContext, ClassData, ClassFactory } from '../types.ts'
import { applyFields, insertFields, listFields } from './fields.ts'
import { CLASS, LayerStore } from './layers.ts'
import { prepareVectorLayer, type PreparedLayer } from './ingest.ts'

export const GEOMETRY_TYPES = ['POINT', 'LINESTRING', 'POLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON',
  'POINTZ', 'LINESTRINGZ', 'POLYGONZ', 'MULTIPOINTZ', 'MULTILINESTRINGZ', 'MULTIPOLYGONZ'] as const

function geometryTypeOf(v: unknown, path: string): string {
  const s = expectKind<string>('str', v, path)
  if (!(GEOMETRY_TYPES as readonly string[]).includes(s)) {
    throw validationError(`Invalid geometry type '${s}'; expected one of ${GEOMETRY_TYPES.join(', ')} - at \`${path}\``)
  }
  return s
}

function applyFeatureLayer(ctx: ClassContext, id: number, member: unknown): void {
  if (member === undefined) return
  const m = expectObject(member, '$.feature_layer')
  if (m.fields !== undefined) applyFields(ctx.db, id, m.fields, '$.feature_layer.fields', false)
}

export const vectorLayer: ClassFactory = (env) => {
  const layers = new LayerStore(env)
  return {
    identity: CLASS,
    label: 'Vector layer',
    order: 60,
    category: 'layers_and_styles',
    scopes: ['data', 'resource'],
    interfaces: ['IFeatureLayer', 'IWritableFeatureLayer', 'IFieldEditableFeatureLayer',
      'IGeometryEditableFeatureLayer', 'IFilterableFeatureLayer', 'IBboxLayer'],
    members: ['vector_layer', 'feature_layer'],
    acceptsParent: (p) => p === 'resource_group',

    // A layer from a file (`source`): GDAL reads it and the layer's database is built before the
    // create's main write (ingest.ts), which then only records the resource and its fields.
    async prepare(penv, members) {
      if (penv.resourceId !== undefined || members.vector_layer === undefined) return undefined
      const m = expectObject(members.vector_layer, '$.vector_layer')
      if (m.source === undefined || m.source === null) return undefined
      return prepareVectorLayer(env, m, penv)
    },

    create(ctx, id, members) {
      if (members.vector_layer === undefined) throw validationError('Vector layer member is required - at `$.vector_layer`')
      const m = expectObject(members.vector_layer, '$.vector_layer')
      if (m.source !== undefined && m.source !== null) {
        const p = ctx.prepared as PreparedLayer
        insertFields(ctx.db, id, p.fields)
        applyFeatureLayer(ctx, id, members.feature_layer)
        return { srs: p.srs, geometry_type: p.geometryType }
      }
      const srs = memberSrs(m, '$.vector_layer')
      if (m.geometry_type === undefined) throw validationError('Field `geometry_type` is required - at `$.vector_layer`')
      const data: ClassData = { srs,
        geometry_type: geometryTypeOf(m.geometry_type, '$.vector_layer.geometry_type') }
      applyFields(ctx.db, id, m.fields ?? [], '$.vector_layer.fields', true)
      applyFeatureLayer(ctx, id, members.feature_layer)
      return data
    },

    update(ctx, id, members, data) {
      if (members.vector_layer !== undefined) {
        const m = expectObject(members.vector_layer, '$.vector_layer')
        if (m.srs !== undefined && memberSrs(m, '$.vector_layer') !== data.srs) {
          throw validationError('The reference system of an existing layer cannot be changed - at `$.vector_layer.srs`')
        }
        if (m.geometry_type !== undefined && geometryTypeOf(m.geometry_type, '$.vector_layer.geometry_type') !== data.geometry_type) {
          throw validationError('The geometry type of an existing layer cannot be changed - at `$.vector_layer.geometry_type`')
        }
        if (m.fields !== undefined) applyFields(ctx.db, id, m.fields, '$.vector_layer.fields', false)
      }
      applyFeatureLayer(ctx, id, members.feature_layer)
      return data
    },

    serialize(ctx, id, data) {
      const srs = { id: data.srs as number }
      return {
        feature_layer: { srs, geometry_type: data.geometry_type, fields: listFields(ctx.db, id),
          versioning: { enabled: false }, aggregations: [] },
        vector_layer: { srs, geometry_type: data.geometry_type },
      }
    },

    // The layer's own database is deleted once the main transaction has committed.
    remove: (_ctx, id) => () => layers.drop(id),

    capabilities: { featureLayer: layers },
  }
}
