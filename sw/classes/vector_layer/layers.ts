// port: legacy-sql (issue 22)
/**
 * @module classes/vector_layer/layers
 * The vector layers of one app: each layer's database is opened on first use and kept, its
 * columns kept in step with the field list, and dropped after the transaction that deleted
 * the layer resource has committed (the class's delete hook returns that drop); a sweep at
 * first use removes databases left behind by a worker stopped in between.
 */
import { Database } from '../../store/database.ts'
import { decodeGpkg } from '../../geo/gpkg.ts'
import { flatten, intersects } from '../../geo/flat.ts'
import type { FeatureLayerProvider, LayerMeta } from '../../feature/types.ts'
import type { ClassEnv } from '../types.ts'
import type { Link, Replica } from '../../sync/types.ts'
import { VectorFeatureLayer, VectorReplica } from './feature-layer.ts'
import { fieldWriteCount, listFields } from './fields.ts'
import { fieldsSignature, migrateLayer, registerFunctions, syncColumns } from './schema.ts'
import { historyEpoch, resetHistory } from './history-schema.ts'
import { latestVersion } from './versions.ts'
import { Layer } from './layer.ts'
import { isPending } from '../../ingest/pending.ts'
import type { ResourceRef } from '../../resource/types.ts'
import { readRefs, readRefsOfClass } from '../../resource/refs.ts'

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
export const imageName = (resourceId: number) => `layer-${resourceId}`

export class LayerStore implements FeatureLayerProvider {
  #layers = new Map<number, Promise<Layer>>()
  /** The layers whose opening finished, for what is read without waiting (`latest`). */
  #ready = new Map<number, Layer>()
  #metas = new Map<number, { ref: ResourceRef; writes: number; meta: LayerMeta }>()
  #swept: Promise<void> | undefined

  constructor(readonly env: ClassEnv) {}

  /**
   * Layer `ref`'s metadata: its class data and its field list. The list is read from the main db
   * only after a write of field lists (`fieldWriteCount`), not after every write of the tree.
   */
  async meta(ref: ResourceRef): Promise<LayerMeta> {
    const writes = fieldWriteCount()
    const hit = this.#metas.get(ref.id)
    if (hit && hit.ref === ref && hit.writes === writes) return hit.meta
    const fields = hit && hit.writes === writes ? hit.meta.fields : await this.env.main.read((db) => listFields(db, ref.id))
    const data = ref.data as unknown as LayerData
    const meta: LayerMeta = { resourceId: ref.id, srs: data.srs, geometryType: data.geometry_type, fields }
    if (data.versioning?.enabled) meta.versioning = { epoch: data.versioning.epoch, userId: data.versioning.user_id ?? null }
    // Kept only if no field list was written in between (the read queued behind that write otherwise).
    if (fieldWriteCount() === writes) this.#metas.set(ref.id, { ref, writes, meta })
    return meta
  }

  async open(ref: ResourceRef): Promise<VectorFeatureLayer> {
    const meta = await this.meta(ref)
    return new VectorFeatureLayer(meta, await this.#layer(meta), () => this.env.platform.now())
  }

  /** The replica of layer `ref` when it is linked to a remote layer (its `remote` member). */
  async replica(ref: ResourceRef): Promise<Replica | undefined> {
    const link = (ref.data as unknown as LayerData).remote
    return link && new VectorReplica(await this.open(ref), link)
  }

  /** Ids of the layers linked to a remote layer. */
  async linked(): Promise<number[]> {
    const refs = await this.env.main.read((db) => readRefsOfClass(db, CLASS))
    return refs.filter((r) => (r.data as unknown as LayerData).remote).map((r) => r.id)
  }

  /** The open layer database of `meta`, its columns matching `meta.fields`. */
  async #layer(meta: LayerMeta): Promise<Layer> {
    await (this.#swept ??= this.#sweep().catch((err) => this.env.platform.log('Layer sweep failed', err)))
    let p = this.#layers.get(meta.resourceId)
    if (!p) {
      p = this.#open(meta)
      this.#layers.set(meta.resourceId, p)
      p.catch(() => this.#layers.delete(meta.resourceId))
    }
    const layer = await p
    const sig = fieldsSignature(meta.fields)
    if (layer.signature !== sig) {
      await layer.db.write((db) => syncColumns(db, meta.fields))
      layer.signature = sig
    }
    const epoch = meta.versioning?.epoch ?? 0
    if (layer.epoch !== epoch) await this.#startEpoch(layer, epoch, meta.versioning?.userId ?? null)
    if (epoch && !layer.latest) layer.latest = await layer.db.read((db) => latestVersion(db))
    this.#ready.set(meta.resourceId, layer)
    return layer
  }

  /** The newest version of layer `id` if its database is open (`load` opens it); else 0. */
  latest(id: number): number {
    return this.#ready.get(id)?.latest ?? 0
  }

  /** Opens the versioned ones among layers `ids`, so that `latest` knows them. */
  async load(ids: number[]): Promise<void> {
    for (const ref of await this.env.classes.refs(ids)) {
      if (ref?.cls === CLASS && (ref.data as unknown as LayerData).versioning?.enabled) await this.open(ref)
    }
  }

  /**
   * Versioning was turned on or off (or on again) since the history in the database was
   * written: it starts anew for `epoch` (reference §12), and files only the old history
   * kept go.
   */
  async #startEpoch(layer: Layer, epoch: number, userId: number | null): Promise<void> {
    const { platform } = this.env
    const orphans = await layer.db.write((db) => {
      if (historyEpoch(db) === epoch) return []
      return resetHistory(db, epoch, platform.now().toISOString().slice(0, 19), userId)
    })
    layer.epoch = epoch
    layer.latest = 0
    for (const b of orphans) await platform.store.deleteBlob(b).catch(() => undefined)
  }



  async #open(meta: LayerMeta): Promise<Layer> {
    const { platform } = this.env
    let created = false
    let layer: Layer | undefined
    // Evictable: an unused layer gives its memory back and reopens on its next request, so
    // its SQL functions are registered on every connection.
    const db = await Database.open(await platform.sqlite(), platform.store, imageName(meta.resourceId), (sql) => {
      created = sql.selectValue(`SELECT 1 FROM sqlite_master WHERE name = 'layer_meta'`) === undefined
      migrateLayer(sql, meta)
    }, { evictable: true, onConnect: (sql) => registerFunctions(sql, (blob) => {
      const g = layer?.filter && decodeGpkg(blob)
      return !!g && intersects(flatten(g), layer!.filter!)
    }) })
    layer = new Layer(meta.resourceId, db)
    // An existing database may predate a field change; a fresh one was made with these fields.
    if (created) layer.signature = fieldsSignature(meta.fields)
    return layer
  }

  /**
   * Closes and deletes the database of layer `id`, whose resource is gone (the delete hook's
   * after-commit action).
   */
  async drop(id: number): Promise<void> {
    const { store } = this.env.platform
    const p = this.#layers.get(id)
    this.#layers.delete(id)
    this.#metas.delete(id)
    this.#ready.delete(id)
    const open = p && await p.catch(() => undefined)
    // The attachments' bytes are blobs of their own: delete them before the database that lists
    // them, so an interrupted drop is finished by the next sweep instead of leaking them.
    const db = open?.db ?? await this.#openExisting(id)
    if (db) {
      // Old files of attachments (kept for the history) included.
      const blobs = await db.read((sql) => sql.selectValues(`SELECT blob_id FROM feature_attachment
        UNION SELECT blob_id FROM attachment_file`) as string[])
        .catch(() => db.read((sql) => sql.selectValues(`SELECT blob_id FROM feature_attachment`) as string[]))
        .catch(() => [] as string[])
      await db.close()
      for (const b of blobs) await store.deleteBlob(b)
    }
    await store.deleteDatabase(imageName(id))
  }

  /** The saved database of layer `id` opened as it is (no migration), or `undefined`. */
  async #openExisting(id: number): Promise<Database | undefined> {
    const { platform } = this.env
    if (!(await platform.store.listDatabases()).includes(imageName(id))) return undefined
    return Database.open(await platform.sqlite(), platform.store, imageName(id), () => {})
  }

  /** Deletes layer databases whose resource is gone (a drop interrupted by a stopped worker). */
  async #sweep(): Promise<void> {
    const names = await this.env.platform.store.listDatabases()
    // A database an ingest is still building has no resource yet: it is not an orphan.
    const ids = names.filter((n) => !isPending(n)).map((n) => /^layer-(\d+)$/.exec(n)?.[1]).filter((x): x is string => !!x).map(Number)
    if (!ids.length) return
    await this.env.main.read(async (db) => {
      const live = new Set(readRefs(db, ids).filter((r) => r.cls === CLASS).map((r) => r.id))
      for (const id of ids) if (!live.has(id)) await this.drop(id)
    })
  }
}
