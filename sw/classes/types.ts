/**
 * @module classes/types
 * The plug-in contract of a resource class. A class owns its member(s) of the composite
 * resource object: validation on create and change, storage, and serialization.
 */
import type { SqlDb } from '../store/database.ts'
import type { Principal } from '../auth/types.ts'
import type { Services } from '../services.ts'
import type { RasterLayerCapability, RenderableStyle } from '../render/types.ts'

export interface ClassContext {
  db: SqlDb
  user: Principal
  now: Date
}

/** Class-owned state kept in the resource row's `data` column (JSON). */
export type ClassData = Record<string, unknown>

export interface ResourceClass {
  identity: string
  label: string
  /** Listing order among siblings (reference §4.3): groups 0, web maps 20, layers 60… */
  order: number
  scopes: string[]
  interfaces: string[]
  /** Names of the top-level members this class reads on create and change. */
  members: string[]
  /** Whether a resource of this class may live under a parent of class `parentCls`. */
  acceptsParent(parentCls: string): boolean
  /**
   * Validates the members sent on create (absent ones are `undefined`), writes any rows of its
   * own and returns the initial `data`. Throws `ApiError` (422) on bad input.
   */
  create(ctx: ClassContext, id: number, members: Record<string, unknown>): ClassData
  /** Applies the members sent on change; returns the new `data`. */
  update(ctx: ClassContext, id: number, members: Record<string, unknown>, data: ClassData): ClassData
  /** The class's members of the composite object, by member name. */
  serialize(ctx: ClassContext, id: number, data: ClassData): Record<string, unknown>
  /** Removes what the class stored outside the resource row (rows cascade by themselves). */
  remove?(ctx: ClassContext, id: number, data: ClassData): void
  /**
   * Resolves what `create`/`update` cannot read inside the transaction (an upload's bytes),
   * before it starts; returns the members to pass on. Throws `ApiError` on bad input.
   */
  prepare?(services: Services, members: Record<string, unknown>): Promise<Record<string, unknown>>
  /** How the class draws, when it is a style (IRenderableStyle). */
  renderable?: RenderableStyle
  /** The stored raster, when the class is a raster layer that raster styles draw. */
  rasterLayer?: RasterLayerCapability
}
