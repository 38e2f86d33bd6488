/**
 * @module classes/types
 * The plug-in contract of a resource class. A class is one folder `classes/<cls>/` and one
 * line in `registry.ts`; nothing outside its folder names it.
 *
 * A class folder exports a `ClassFactory`: called once per app with that app's `ClassEnv`,
 * it returns the class (`ResourceClass`), which is:
 * - its identity and listing facts (`identity`, `label`, `order`, `scopes`, `interfaces`);
 * - its members of the composite resource object (`members`) with the hooks that validate
 *   and store them (`create`, `update`), serialize them (`serialize`) and clean up on delete
 *   (`remove`, which returns actions that run after the commit) — see `resource/class.ts`;
 * - the capabilities it provides to components (`capabilities`): `featureLayer` (open, query and write its features: `feature/types.ts`),
 *   `bboxLayer` (an extent), `rasterFile` and `fileBucket` (stored files: `files/types.ts`); renderable
 *   style, tile source… join `Capabilities` as their components arrive.
 * Components look capabilities up through the registry (`featureLayerOf(cls)`), so any
 * class that provides one is served, whatever its storage.
 */
import type { Platform } from '../platform/platform.ts'
import type { DataPort } from '../port/port.ts'
import type { RemoteConnectionProvider, ReplicaProvider, SyncLookup } from '../sync/types.ts'
import type { ClassLookup, ResourceKind } from '../resource/class.ts'
import type { ResourceRef, ResourceRefs } from '../resource/types.ts'
import type { RenderableStyle } from '../render/types.ts'
import type { BboxLayerProvider, FeatureLayerProvider } from '../feature/types.ts'
import type { FileBucketProvider, RasterFileProvider } from '../files/types.ts'
import type { GpkgSources } from '../ingest/vector-convert.ts'
import type { SpatialDbPort } from '../port/spatialdb.ts'
import type { SpatialDbConnectionProvider, SpatialDbLayerProvider, SpatialDbSources } from '../spatialdb/types.ts'
import type { LinkedNeed } from '../auth/types.ts'
import type { Catalogue } from '../catalogue/service.ts'
import type { WmsConnectionProvider, WmsConnections } from '../ogc/client/types.ts'

export type { AfterCommit, ClassContext, ClassData, Prepared, PrepareEnv, WriteContext } from '../resource/class.ts'

/** What a class's capabilities get from the app they serve. */
export interface ClassEnv {
  platform: Platform
  /** The main data and the layers' tables: every class reads and writes through it. */
  data: DataPort
  /** GDAL's GeoPackages of the ingests (SQLite's on every host, whatever `data` is). */
  gpkgSources: GpkgSources
  /** The app's registry, for a class whose rules depend on other classes' capabilities (a style's parent,
   *  a connection's credentials for a linked layer). */
  classes: ClassLookup & SyncLookup & ResourceRefs & SpatialDbSources & WmsConnections
  /**
   * A team's own PostGIS databases (issue 24): the Node host's (sw/postgres/external); absent in
   * the service worker, which cannot open a database connection.
   */
  spatialDb?: SpatialDbPort
  /** The geoservice catalogue, for a class made from one of its entries (`basemap_layer`); absent in unit tests. */
  catalogue?: () => Promise<Pick<Catalogue, 'index'>>
}

/** The capabilities of a class; each is optional. */
export interface Capabilities {
  /** Features: read, filter, write (`IFeatureLayer` and friends). */
  featureLayer?: FeatureLayerProvider
  /** A team's server and how to log in there (`remote_connection`). */
  remoteConnection?: RemoteConnectionProvider
  /** Layers linked to a remote layer, with their sync bookkeeping. */
  replica?: ReplicaProvider
  /** How a style draws its layer (`IRenderableStyle`): `render/types.ts`. */
  renderable?: RenderableStyle
  /** An extent without features (`IBboxLayer` of a raster): `layer.extent`. */
  bboxLayer?: BboxLayerProvider
  /** One stored raster file: `/download`, `/cog` (files component). */
  rasterFile?: RasterFileProvider
  /** Named stored files: `/file/{name}`, `/export` (files component). */
  fileBucket?: FileBucketProvider
  /** How to reach a team's own PostGIS database (`spatialdb_connection`): spatialdb/. */
  spatialDbConnection?: SpatialDbConnectionProvider
  /** A published table of such a database (`spatialdb_layer`), for the diagnostics: spatialdb/. */
  spatialDbLayer?: SpatialDbLayerProvider
  /** A remote WMS and how to ask it (`wmsclient_connection`): ogc/client. */
  wmsConnection?: WmsConnectionProvider
  /**
   * A permission on another resource that reading this one's data needs (a PostGIS layer's
   * `data.read` needs `connection.connect` on its connection, reference ngw-services §4.5).
   */
  dataNeeds?(ref: ResourceRef): Omit<LinkedNeed, 'id'> | undefined
}

export interface ResourceClass extends ResourceKind {
  capabilities: Capabilities
}

/**
 * Makes a class for one app. State the class keeps per app (open databases) lives in the
 * closure, where both its hooks and its capabilities reach it.
 */
export type ClassFactory = (env: ClassEnv) => ResourceClass
