/**
 * @module classes/registry
 * Every resource class the server knows. Adding a class is a folder and one line in
 * `CLASSES`. The registry is made once per app; components find classes and their
 * capabilities through it (`find`, `featureLayerOf`), never by naming a class.
 */
import type { ClassLookup } from '../resource/class.ts'
import type { Bbox } from '../geo/geometry.ts'
import type { FeatureLayer, FeatureLayerProvider, FeatureLayers } from '../feature/types.ts'
import type { BucketFile, StoredFile, StoredFiles } from '../files/types.ts'
import type { Capabilities, ClassEnv, ClassFactory, ResourceClass } from './types.ts'
import { resourceGroup } from './resource_group/index.ts'
import { vectorLayer } from './vector_layer/index.ts'
import { lookupTable } from './lookup_table/index.ts'
import { engineStyle } from './engine_style/index.ts'
import { qgisVectorStyle } from './qgis_vector_style/index.ts'
import { rasterLayer } from './raster_layer/index.ts'
import { rasterStyle } from './raster_style/index.ts'
import { fileBucket } from './file_bucket/index.ts'

const CLASSES: ClassFactory[] = [
  resourceGroup,
  vectorLayer,
  lookupTable,
  engineStyle,
  qgisVectorStyle,
  rasterLayer,
  rasterStyle,
  fileBucket,
]

/** The spec's names for classes the original calls otherwise (accepted on input). */
const ALIASES: Record<string, string> = {
  postgis_connection: 'spatialdb_connection',
  postgis_layer: 'spatialdb_layer',
  mapserver_style: 'engine_style',
}

export class ClassRegistry implements ClassLookup, FeatureLayers, StoredFiles {
  readonly #classes: ResourceClass[]
  readonly #byId: Map<string, ResourceClass>
  /** Resource id → class, per version of the main database. */
  #clsOf = new Map<number, string | undefined>()
  #clsVersion = -1

  readonly env: ClassEnv

  constructor(env: Omit<ClassEnv, 'classes'>) {
    this.env = { ...env, classes: this }
    this.#classes = CLASSES.map((make) => make(this.env))
    this.#byId = new Map(this.#classes.map((c) => [c.identity, c]))
  }

  find(cls: string): ResourceClass | undefined {
    return this.#byId.get(ALIASES[cls] ?? cls)
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

  async featureLayer(id: number): Promise<FeatureLayer | undefined> {
    const cls = await this.#classOf(id)
    return cls === undefined ? undefined : this.featureLayerOf(cls)?.open(id)
  }

  async layerExtent(id: number): Promise<{ bbox: Bbox | null; srs: number } | undefined> {
    return (await this.#capability(id, 'bboxLayer'))?.extent(id)
  }

  async rasterFile(id: number): Promise<StoredFile | undefined> {
    return (await this.#capability(id, 'rasterFile'))?.rasterFile(id)
  }

  async bucketFiles(id: number): Promise<BucketFile[] | undefined> {
    return (await this.#capability(id, 'fileBucket'))?.bucketFiles(id)
  }

  /** Capability `key` of the class of resource `id`, if it provides one. */
  async #capability<K extends keyof Capabilities>(id: number, key: K): Promise<Capabilities[K] | undefined> {
    const cls = await this.#classOf(id)
    return cls === undefined ? undefined : this.find(cls)?.capabilities[key]
  }

  /** The class of resource `id`; read once per version of the main database. */
  async #classOf(id: number): Promise<string | undefined> {
    const { main } = this.env
    if (this.#clsVersion !== main.version) {
      this.#clsOf.clear()
      this.#clsVersion = main.version
    }
    if (this.#clsOf.has(id)) return this.#clsOf.get(id)
    const version = main.version
    const cls = await main.read((db) => db.selectValue(`SELECT cls FROM resource WHERE id = ?`, [id]) as string | undefined)
    // Bounded: ids asked for between two writes, of which a session asks few.
    if (this.#clsOf.size > 10_000) this.#clsOf.clear()
    if (main.version === version) this.#clsOf.set(id, cls)
    return cls
  }
}
