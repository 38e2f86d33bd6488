/**
 * @module classes/registry
 * Every resource class the server knows. Adding a class is a folder and one line in
 * `CLASSES`. The registry is made once per app; components find classes and their
 * capabilities through it (`find`, `featureLayerOf`), never by naming a class. It is also the
 * one place that reads what a resource is (`ref`, `refs`): a capability gets its resource's
 * ref from here, the class already checked, and never reads the row itself.
 */
import type { ClassLookup } from '../resource/class.ts'
import type { ResourceRef, ResourceRefs } from '../resource/types.ts'
import type { Bbox } from '../geo/geometry.ts'
import type { FeatureLayer, FeatureLayerProvider, FeatureLayers } from '../feature/types.ts'
import type { Credentials, Replica, SyncLookup } from '../sync/types.ts'
import type { BucketFile, StoredFile, StoredFiles } from '../files/types.ts'
import type { Capabilities, ClassEnv, ClassFactory, ResourceClass } from './types.ts'
import { specName } from '../core/identifiers.ts'
import { resourceGroup } from './resource_group/index.ts'
import { vectorLayer } from './vector_layer/index.ts'
import { lookupTable } from './lookup_table/index.ts'
import { engineStyle } from './engine_style/index.ts'
import { qgisVectorStyle } from './qgis_vector_style/index.ts'
import { rasterLayer } from './raster_layer/index.ts'
import { rasterStyle } from './raster_style/index.ts'
import { fileBucket } from './file_bucket/index.ts'
import { remoteConnection } from './remote_connection/index.ts'
import { spatialDbConnection } from './spatialdb_connection/index.ts'
import { spatialDbLayer } from './spatialdb_layer/index.ts'
import { webMap } from './webmap/index.ts'
import { basemapLayer } from './basemap_layer/index.ts'
import { wmsClientConnection } from './wmsclient_connection/index.ts'
import { wmsClientLayer } from './wmsclient_layer/index.ts'
import type { WmsConnectionState, WmsConnections } from '../ogc/client/types.ts'
import { wmsServerService } from './wmsserver_service/index.ts'
import type { SpatialDbSource } from '../port/spatialdb.ts'
import type { SpatialDbCheckLayer, SpatialDbSources } from '../spatialdb/types.ts'
import type { LinkedNeed, LinkedNeeds } from '../auth/types.ts'

const CLASSES: ClassFactory[] = [
  resourceGroup,
  vectorLayer,
  lookupTable,
  engineStyle,
  qgisVectorStyle,
  rasterLayer,
  rasterStyle,
  fileBucket,
  remoteConnection,
  spatialDbConnection,
  spatialDbLayer,
  webMap,
  basemapLayer,
  wmsClientConnection,
  wmsClientLayer,
  wmsServerService,
]

export class ClassRegistry implements ClassLookup, FeatureLayers, StoredFiles, SyncLookup, ResourceRefs, SpatialDbSources, LinkedNeeds, WmsConnections {
  readonly #classes: ResourceClass[]
  readonly #byId: Map<string, ResourceClass>
  /** Resource id → its ref (`null`: no such resource), as read at the main data's change token `#refsToken`. */
  #refs = new Map<number, ResourceRef | null>()
  #refsToken = ''

  readonly env: ClassEnv

  constructor(env: Omit<ClassEnv, 'classes'>) {
    this.env = { ...env, classes: this }
    this.#classes = CLASSES.map((make) => make(this.env))
    this.#byId = new Map(this.#classes.map((c) => [c.identity, c]))
  }

  /** The class named `cls` in the spec's or the original's spelling (core/identifiers). */
  find(cls: string): ResourceClass | undefined {
    return this.#byId.get(specName(cls))
  }

  get(cls: string): ResourceClass {
    const c = this.find(cls)
    if (!c) throw new Error(`Resource class '${cls}' is not registered.`)
    return c
  }

  list(): readonly ResourceClass[] {
    return this.#classes
  }

  /** The feature-layer capability of class `cls`, if it provides one. */
  featureLayerOf(cls: string): FeatureLayerProvider | undefined {
    return this.find(cls)?.capabilities.featureLayer
  }

  featureLayer(id: number): Promise<FeatureLayer | undefined> {
    return this.#use(id, 'featureLayer', (c, r) => c.open(r))
  }

  remoteConnection(id: number): Promise<Credentials | undefined> {
    return this.#use(id, 'remoteConnection', (c, r) => c.credentials(r))
  }

  replica(id: number): Promise<Replica | undefined> {
    return this.#use(id, 'replica', (c, r) => c.open(r))
  }

  async linkedLayers(): Promise<number[]> {
    const ids: number[] = []
    for (const c of this.#classes) if (c.capabilities.replica) ids.push(...await c.capabilities.replica.linked())
    return ids
  }

  spatialDbSource(id: number): Promise<SpatialDbSource | undefined> {
    return this.#use(id, 'spatialDbConnection', (c, r) => c.source(r))
  }

  wmsConnection(id: number): Promise<WmsConnectionState | undefined> {
    return this.#use(id, 'wmsConnection', (c, r) => c.connection(r))
  }

  spatialDbTable(id: number): Promise<{ connection: number; table: SpatialDbCheckLayer } | undefined> {
    return this.#use(id, 'spatialDbLayer', async (c, r) => c.table(r))
  }

  /**
   * What reading the data of `ids` needs on other resources (auth/checkpoint asks; most classes
   * name none). A style draws its layer's data, so a resource without needs of its own has its
   * parent's (a style of a PostGIS layer needs `connection.connect` as the layer does).
   */
  async linkedNeeds(ids: readonly number[]): Promise<LinkedNeed[]> {
    const refs = (await this.refs(ids)).filter((r): r is ResourceRef => !!r)
    const needOf = (r: ResourceRef | undefined) => (r ? this.find(r.cls)?.capabilities.dataNeeds?.(r) : undefined)
    const orphans = refs.filter((r) => !needOf(r) && r.parentId !== null)
    const parents = new Map((await this.refs(orphans.map((r) => r.parentId!))).filter((r): r is ResourceRef => !!r).map((r) => [r.id, r]))
    const out: LinkedNeed[] = []
    for (const r of refs) {
      const need = needOf(r) ?? (r.parentId === null ? undefined : needOf(parents.get(r.parentId)))
      if (need) out.push({ id: r.id, ...need })
    }
    return out
  }

  layerExtent(id: number): Promise<{ bbox: Bbox | null; srs: number } | undefined> {
    return this.#use(id, 'bboxLayer', (c, r) => c.extent(r))
  }

  rasterFile(id: number): Promise<StoredFile | undefined> {
    return this.#use(id, 'rasterFile', (c, r) => c.rasterFile(r))
  }

  bucketFiles(id: number): Promise<BucketFile[] | undefined> {
    return this.#use(id, 'fileBucket', (c, r) => c.bucketFiles(r))
  }

  /** Capability `key` of the class of resource `id` applied to its ref; `undefined` when there is either none. */
  async #use<K extends keyof Capabilities, T>(id: number, key: K,
    fn: (c: NonNullable<Capabilities[K]>, ref: ResourceRef) => Promise<T | undefined>): Promise<T | undefined> {
    const r = await this.ref(id)
    const c = r && this.find(r.cls)?.capabilities[key]
    return c ? fn(c, r) : undefined
  }

  async ref(id: number): Promise<ResourceRef | undefined> {
    return (await this.refs([id]))[0]
  }

  /**
   * The refs of `ids`, position for position. What is not cached is read in one query; the
   * cache holds while the main data's change token has not moved (any commit, a reopen), and
   * what a read brings is kept only if no write landed while it was queued.
   */
  async refs(ids: readonly number[]): Promise<Array<ResourceRef | undefined>> {
    const { data } = this.env
    const before = data.tokens.current('main')
    if (this.#refsToken !== before) {
      this.#refs.clear()
      this.#refsToken = before
    }
    const known = this.#refs
    const missing = [...new Set(ids.filter((id) => !known.has(id)))]
    if (!missing.length) return ids.map((id) => known.get(id) ?? undefined)
    const read = new Map<number, ResourceRef | null>(missing.map((id) => [id, null]))
    for (const r of await data.read((tx) => tx.resources.refs(missing))) read.set(r.id, r)
    if (data.tokens.current('main') === before) {
      // Bounded: ids asked for between two writes, of which a session asks few.
      if (known.size + read.size > 10_000) known.clear()
      for (const [id, r] of read) known.set(id, r)
    }
    return ids.map((id) => (read.has(id) ? read.get(id) : known.get(id)) ?? undefined)
  }
}
