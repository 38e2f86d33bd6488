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
import type { FeatureLayer, FeatureLayerProvider, FeatureRead, FeatureWrite, LayerMeta } from '../../feature/types.ts'
import type { ClassEnv } from '../types.ts'
import { listFields } from './fields.ts'
import { fieldsSignature, migrateLayer, registerFunctions, syncColumns } from './schema.ts'
import { LayerReader } from './reader.ts'
import { LayerWriter } from './writer.ts'
import { Layer } from './layer.ts'
import { gpkgStorage } from './storage.ts'
import type { GpkgStorage } from '../../feature/types.ts'
import { isPending } from '../../ingest/pending.ts'

export const CLASS = 'vector_layer'
export const imageName = (resourceId: number) => `layer-${resourceId}`

/** A layer as the feature component sees it: metadata, reads and writes. */
class VectorFeatureLayer implements FeatureLayer {
  readonly gpkg: GpkgStorage

  constructor(readonly meta: LayerMeta, readonly layer: Layer, readonly now: () => Date) {
    this.gpkg = gpkgStorage(layer, meta)
  }

  get version(): number {
    return this.layer.db.version
  }

  read<T>(fn: (tx: FeatureRead) => T): Promise<T> {
    return this.layer.db.read((db) => fn(new LayerReader(db, this.layer, this.meta)))
  }

  write<T>(fn: (tx: FeatureWrite) => T): Promise<T> {
    return this.layer.db.write((db) => {
      const w = new LayerWriter(db, this.layer, this.meta, this.now().toISOString().slice(0, 19), this.layer.db.sqlite)
      try {
        const r = fn(w)
        w.finish()
        return r
      } catch (err) {
        w.abort()
        throw err
      }
    })
  }
}

export class LayerStore implements FeatureLayerProvider {
  #layers = new Map<number, Promise<Layer>>()
  #metas = new Map<number, { version: number; meta: LayerMeta }>()
  #swept: Promise<void> | undefined

  constructor(readonly env: ClassEnv) {}

  /** The layer's metadata from the main db; `undefined` when `id` is not a vector layer. */
  async meta(id: number): Promise<LayerMeta | undefined> {
    // Read once per version of the main db: most requests of a session change nothing there.
    const { main } = this.env
    const hit = this.#metas.get(id)
    if (hit && hit.version === main.version) return hit.meta
    const version = main.version
    const meta = await main.read((db) => {
      const row = db.selectObject(`SELECT cls, data FROM resource WHERE id = ?`, [id]) as { cls: string; data: string } | undefined
      if (!row || row.cls !== CLASS) return undefined
      const data = JSON.parse(row.data) as { srs: number; geometry_type: string }
      return { resourceId: id, srs: data.srs, geometryType: data.geometry_type, fields: listFields(db, id) }
    })
    // Kept only if no write landed in between (the read queued behind it otherwise).
    if (meta && main.version === version) this.#metas.set(id, { version, meta })
    return meta
  }

  async open(id: number): Promise<FeatureLayer | undefined> {
    const meta = await this.meta(id)
    if (!meta) return undefined
    return new VectorFeatureLayer(meta, await this.#layer(meta), () => this.env.platform.now())
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
    return layer
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
    const open = p && await p.catch(() => undefined)
    // The attachments' bytes are blobs of their own: delete them before the database that lists
    // them, so an interrupted drop is finished by the next sweep instead of leaking them.
    const db = open?.db ?? await this.#openExisting(id)
    if (db) {
      const blobs = await db.read((sql) => sql.selectValues(`SELECT blob_id FROM feature_attachment`) as string[])
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
      for (const id of ids) {
        if (!db.selectValue(`SELECT 1 FROM resource WHERE id = ? AND cls = ?`, [id, CLASS])) await this.drop(id)
      }
    })
  }
}
