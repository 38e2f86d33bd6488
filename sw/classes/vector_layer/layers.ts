/**
 * @module classes/vector_layer/layers
 * The vector layers of one app: each layer's database is opened on first use and kept, its
 * columns kept in step with the field list, and dropped after the transaction that deleted
 * the layer resource has committed (the class's delete hook returns that drop); a sweep at
 * first use removes databases left behind by a worker stopped in between.
 */
import type { FeatureLayer, FeatureLayerProvider, LayerMeta } from '../../feature/types.ts'
import type { ClassEnv } from '../types.ts'
import type { Link, Replica } from '../../sync/types.ts'
import type { ResourceRef } from '../../resource/types.ts'

export const CLASS = 'vector_layer'

/** What the resource row keeps of a vector layer (its `data`). */
export interface LayerData {
  srs: number
  geometry_type: string
  /** Versioning (reference §12): the epoch stays when it is turned off, so a new one differs. */
  versioning?: { enabled: boolean; epoch: number; user_id?: number | null }
  /** The remote layer this one is linked to (sync/). */
  remote?: Link
}

export class LayerStore implements FeatureLayerProvider {
  /** Each layer's metadata, kept while the main data's change token stays `token`. */
  #metas = new Map<number, { ref: ResourceRef; token: string; meta: LayerMeta }>()
  #sweeping: Promise<void> | undefined

  constructor(readonly env: ClassEnv) {}

  /** The layers' tables (SQLite: a database each). */
  get #tables() {
    return this.env.data.features
  }

  /**
   * Layer `ref`'s metadata: its class data and its field list, read again only once the main
   * data has changed since (its token moved).
   */
  async meta(ref: ResourceRef): Promise<LayerMeta> {
    const { data } = this.env
    const token = data.tokens.current('main')
    const hit = this.#metas.get(ref.id)
    if (hit && hit.ref === ref && hit.token === token) return hit.meta
    const fields = (await data.read((tx) => tx.fields.list([ref.id]))).get(ref.id) ?? []
    const layer = ref.data as unknown as LayerData
    const meta: LayerMeta = { resourceId: ref.id, srs: layer.srs, geometryType: layer.geometry_type, fields }
    if (layer.versioning?.enabled) meta.versioning = { epoch: layer.versioning.epoch, userId: layer.versioning.user_id ?? null }
    // Kept with the token from before the read: a write that committed in between moved it, so the entry is never used.
    this.#metas.set(ref.id, { ref, token, meta })
    return meta
  }

  async open(ref: ResourceRef): Promise<FeatureLayer> {
    const meta = await this.meta(ref)
    await this.#swept()
    return this.#tables.open(meta, this.#now)
  }

  /** The replica of layer `ref` when it is linked to a remote layer (its `remote` member). */
  async replica(ref: ResourceRef): Promise<Replica | undefined> {
    const link = (ref.data as unknown as LayerData).remote
    if (!link) return undefined
    const meta = await this.meta(ref)
    await this.#swept()
    return this.#tables.replica(meta, link, this.#now)
  }

  /** Ids of the layers linked to a remote layer. */
  async linked(): Promise<number[]> {
    const refs = await this.env.data.read((tx) => tx.resources.ofClass(CLASS))
    return refs.filter((r) => (r.data as unknown as LayerData).remote).map((r) => r.id)
  }

  readonly #now = () => this.env.platform.now()

  /** The first use's sweep, run once before any layer is opened. */
  #swept(): Promise<void> {
    return this.#sweeping ??= this.#sweep().catch((err) => this.env.platform.log('Layer sweep failed', err))
  }

  /** The newest version of layer `id` if its tables are open (`load` opens them); else 0. */
  latest(id: number): number {
    return this.#tables.latest(id)
  }

  /** Opens the versioned ones among layers `ids`, so that `latest` knows them. */
  async load(ids: number[]): Promise<void> {
    for (const ref of await this.env.classes.refs(ids)) {
      if (ref?.cls === CLASS && (ref.data as unknown as LayerData).versioning?.enabled) await this.open(ref)
    }
  }

  /** Deletes the tables of layer `id`, whose resource is gone (the delete hook's after-commit action). */
  async drop(id: number): Promise<void> {
    this.#metas.delete(id)
    await this.#tables.drop(id)
  }

  /**
   * Deletes the tables of layers whose resource is gone (a drop interrupted by a stopped
   * worker). The ids are read first and the drops run after, outside any main read.
   */
  async #sweep(): Promise<void> {
    const ids = await this.#tables.stored()
    if (!ids.length) return
    // Any resource's: a PostGIS layer keeps its features' attachments in tables of its own (classes/spatialdb_layer/extras.ts).
    const live = new Set((await this.env.classes.refs(ids)).filter((r) => r !== undefined).map((r) => r!.id))
    for (const id of ids) if (!live.has(id)) await this.drop(id)
  }
}
