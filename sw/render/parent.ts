/**
 * @module render/parent
 * The layer a style draws: its parent resource, found through the class registry by the
 * capability it offers (a feature layer or a raster layer), never by class name.
 */
import type { ResourceRef } from '../resource/types.ts'
import { validationError } from '../core/error.ts'
import { geometryKindOf } from './types.ts'
import type { GeometryKind } from './style.ts'

export interface StyledLayer {
  id: number
  cls: string
  srs: number
  /** Feature layers: the kind of geometry the style draws; raster layers: undefined. */
  geometry?: GeometryKind
  geometryType?: string
  /** The layer's class data. */
  data: Record<string, unknown>
}

/** What the layer lookups need of the registry: a class's interfaces. */
export interface InterfaceLookup {
  find(cls: string): { interfaces: readonly string[] } | undefined
}

/** Whether a resource of class `cls` can carry a vector style (it is a feature layer). */
export const isFeatureLayerClass = (classes: InterfaceLookup, cls: string) => !!classes.find(cls)?.interfaces.includes('IFeatureLayer')

/** Resource `ref` as the layer a style draws. */
export function layerOf(classes: InterfaceLookup, ref: ResourceRef): StyledLayer {
  const data = ref.data as { srs?: number; geometry_type?: string }
  const geometryType = isFeatureLayerClass(classes, ref.cls) ? data.geometry_type : undefined
  return { id: ref.id, cls: ref.cls, srs: data.srs ?? 3857, geometryType, data: ref.data,
    geometry: geometryType ? geometryKindOf(geometryType) : undefined }
}

/** The layer a style under `parent` draws (the tree hands a style's hooks its parent as `ctx.parent`). */
export function styledLayerOf(classes: InterfaceLookup, parent: ResourceRef | undefined): StyledLayer {
  if (!parent) throw validationError('A style must be created under a layer.')
  return layerOf(classes, parent)
}
