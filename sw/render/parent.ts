/**
 * @module render/parent
 * The layer a style draws: its parent resource, found through the class registry by the
 * capability it offers (a feature layer or a raster layer), never by class name.
 */
import type { SqlDb } from '../store/database.ts'
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

/** Layer `id`, or `undefined` when there is no such resource. */
export function layerById(db: SqlDb, classes: InterfaceLookup, id: number): StyledLayer | undefined {
  const row = db.selectObject(`SELECT id, cls, data FROM resource WHERE id = ?`, [id]) as
    { id: number; cls: string; data: string } | undefined
  if (!row) return undefined
  const data = JSON.parse(row.data) as { srs?: number; geometry_type?: string }
  const geometryType = isFeatureLayerClass(classes, row.cls) ? data.geometry_type : undefined
  return { id: row.id, cls: row.cls, srs: data.srs ?? 3857, geometryType, data,
    geometry: geometryType ? geometryKindOf(geometryType) : undefined }
}

/** The parent layer of style `id` (inside a transaction that may have just created it). */
export function styledLayerOf(db: SqlDb, classes: InterfaceLookup, id: number): StyledLayer {
  const parent = db.selectValue(`SELECT parent_id FROM resource WHERE id = ?`, [id]) as number | null | undefined
  const layer = parent === null || parent === undefined ? undefined : layerById(db, classes, parent)
  if (!layer) throw validationError('A style must be created under a layer.')
  return layer
}
