/**
 * @module spatialdb/types
 * What the spatialdb component (a team's own PostGIS databases, issue 24) needs of the
 * classes: the parameters of a `spatialdb_connection`, its password decrypted.
 */
import type { ResourceRef } from '../resource/types.ts'
import type { SpatialDbPort, SpatialDbSource } from '../port/spatialdb.ts'

/** A published table as the diagnostics take it (its geometry may still be unknown). */
export type SpatialDbCheckLayer = NonNullable<Parameters<SpatialDbPort['check']>[1]>

/** The capability of `spatialdb_connection`. */
export interface SpatialDbConnectionProvider {
  /** The connection `ref` as the port takes it; 422 when its password cannot be decrypted here. */
  source(ref: ResourceRef): Promise<SpatialDbSource>
}

/** The capability of `spatialdb_layer`: its connection and table, for the diagnostics. */
export interface SpatialDbLayerProvider {
  table(ref: ResourceRef): { connection: number; table: SpatialDbCheckLayer }
}

/** How a component or class finds a connection or a layer, whatever its class (the registry). */
export interface SpatialDbSources {
  /** `undefined` when resource `id` does not exist or is no PostGIS connection. */
  spatialDbSource(id: number): Promise<SpatialDbSource | undefined>
  /** `undefined` when resource `id` does not exist or is no PostGIS layer. */
  spatialDbTable(id: number): Promise<{ connection: number; table: SpatialDbCheckLayer } | undefined>
}
