/**
 * @module services
 * The backend's long-lived state: the data port and what is derived from it. Opened on
 * the first request (never on the worker's start-up path) and re-created after the worker
 * is stopped; nothing here is authoritative but the store. Each component declares the part
 * of it that it uses (its `env.ts`); this object has them all.
 */
import type { Platform } from './platform/platform.ts'
import { sharedStart } from './core/once.ts'
import { Authenticator, provisionUsers } from './auth/service.ts'
import { AclEvaluator } from './auth/acl.ts'
import { provisionRoot } from './resource/service.ts'
import { Catalogue } from './catalogue/service.ts'
import { ClassRegistry } from './classes/registry.ts'
import { sweepFiles } from './files/service.ts'
import type { DataPort } from './port/port.ts'
import type { GpkgFiles } from './feature/types.ts'
import { openSqliteData } from './sqlite/port.ts'
import { sqliteGpkgFiles } from './sqlite/gpkg-file/writer.ts'
import { sqliteGpkgSources } from './sqlite/gpkg-file/source.ts'
import type { GpkgSources } from './ingest/vector-convert.ts'
import { Identifiers } from './core/identifiers.ts'
import type { SpatialDbPort } from './port/spatialdb.ts'

export interface Services {
  platform: Platform
  /** The data port (issue 22): repositories and units of work; SQLite's (sw/sqlite) unless the host chose another. */
  data: DataPort
  /** The GeoPackage file writer: SQLite's on every host, a GeoPackage being an SQLite file. */
  gpkgFiles: GpkgFiles
  /** GDAL's GeoPackages of the ingests, opened by SQLite on every host, whichever engine holds the layers. */
  gpkgSources: GpkgSources
  auth: Authenticator
  /** Who may do what on which resource (auth/acl.ts), cached until the store's ACL change token moves. */
  acl: AclEvaluator
  /** The resource classes and their capabilities, for this app. */
  classes: ClassRegistry
  /** The geoservice catalogue, opened on the first catalogue request (a failed open is retried). */
  catalogue: () => Promise<Catalogue>
  /** True when this start created the administrator (a fresh database). */
  adminCreated: boolean
  /** How answers spell the names that differ between the spec and the original (AppOptions `identifiers`). */
  names: Identifiers
  /** A team's own PostGIS databases (issue 24): the Node host's; absent in the service worker. */
  spatialDb?: SpatialDbPort
  /** Closes what the services hold open: the PostGIS pools, then the data port. */
  close(): Promise<void>
}

/** Opens the data port the host chose (the Node host's `--database`: PostgreSQL). */
export type DataOpener = (platform: Platform) => Promise<DataPort>

/** Opens the host's access to teams' own PostGIS databases (the Node host's sw/postgres/external). */
export type SpatialDbOpener = () => Promise<SpatialDbPort>

/** SQLite in the platform's store: every host's default. */
const sqliteData: DataOpener = (platform) => openSqliteData(platform.sqlite, { store: platform.store, asyncContext: platform.asyncContext })

export async function openServices(platform: Platform, openData: DataOpener = sqliteData, names = new Identifiers(),
  openSpatialDb?: SpatialDbOpener): Promise<Services> {
  const data = await openData(platform)
  let adminCreated: boolean
  try {
    adminCreated = await provisionUsers(data, platform.admin)
    await provisionRoot(data, platform.now())
  } catch (err) {
    // The next request opens the port again: this one's connections (PostgreSQL's pool) go now.
    await data.close().catch(() => undefined)
    throw err
  }
  // Files an interrupted create or delete left behind go now, without delaying the start.
  void sweepFiles({ platform, data }).catch((err) => platform.log('Sweeping stored files failed', err))
  const openCatalogue = sharedStart(() => Catalogue.open(platform, data))
  const gpkgSources = sqliteGpkgSources(platform.sqlite)
  const spatialDb = await openSpatialDb?.().catch(async (err: unknown) => { await data.close().catch(() => undefined); throw err })
  // Opened once (a failed open is retried); each use re-reads it if its change token moved.
  const catalogue = async () => (await openCatalogue()).current()
  return {
    platform, data, adminCreated, names, gpkgFiles: sqliteGpkgFiles(platform.sqlite), gpkgSources, spatialDb,
    close: async () => { await spatialDb?.close(); await data.close() },
    auth: new Authenticator(data, () => platform.now().getTime()),
    acl: new AclEvaluator(),
    classes: new ClassRegistry({ platform, data, gpkgSources, spatialDb, catalogue }),
    catalogue,
  }
}
