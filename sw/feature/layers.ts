/**
 * @module feature/layers
 * Opens each vector layer's database on first use and keeps it per app, keeps its columns
 * in step with the field list, and drops it when the layer resource is gone: the class's
 * `remove` hook runs inside the main transaction, so the drop is queued behind that write
 * and happens only if the resource is really gone after it; a sweep at first use removes
 * databases left behind by a worker stopped in between.
 */
import type { Services } from '../services.ts'
import { Database, type SqlDb } from '../store/database.ts'
import { listFields } from '../classes/vector_layer/fields.ts'
import { resourceNotFound } from '../resource/errors.ts'
import { decodeGpkg } from '../geo/gpkg.ts'
import { intersects } from '../geo/measure.ts'
import type { Geometry } from '../geo/geometry.ts'
import { fieldsSignature, migrateLayer, registerFunctions, syncColumns, type LayerMeta } from './schema.ts'

export const imageName = (resourceId: number) => `layer-${resourceId}`

/** An open layer database with what queries need to know about it. */
export class Layer {
  /** The geometry `outpost_intersects(geom)` tests against during one query. */
  filter: Geometry | undefined
  signature = ''

  constructor(readonly resourceId: number, readonly db: Database) {}
}

/** Main databases' handles → their registry, so the class hook can find it. */
const BY_MAIN = new WeakMap<SqlDb, LayerRegistry>()
const BY_SERVICES = new WeakMap<Services, LayerRegistry>()

export class LayerRegistry {
  #layers = new Map<number, Promise<Layer>>()
  #metas = new Map<number, { version: number; meta: LayerMeta }>()
  #swept: Promise<void> | undefined

  constructor(readonly services: Services) {}

  /** The layer's metadata from the main db; 404 when `id` is not a vector layer. */
  async meta(id: number): Promise<LayerMeta> {
    // Read once per version of the main db: most requests of a session change nothing there.
    const { main } = this.services
    const hit = this.#metas.get(id)
    if (hit && hit.version === main.version) return hit.meta
    const version = main.version
    const meta = await main.read((db) => {
      BY_MAIN.set(db, this)
      const row = db.selectObject(`SELECT cls, data FROM resource WHERE id = ?`, [id]) as { cls: string; data: string } | undefined
      if (!row || row.cls !== 'vector_layer') throw resourceNotFound(id)
      const data = JSON.parse(row.data) as { srs: number; geometry_type: string }
      return { resourceId: id, srs: data.srs, geometryType: data.geometry_type, fields: listFields(db, id) }
    })
    // Kept only if no write landed in between (the read queued behind it otherwise).
    if (main.version === version) this.#metas.set(id, { version, meta })
    return meta
  }

  /** The open layer database of `meta`, its columns matching `meta.fields`. */
  async open(meta: LayerMeta): Promise<Layer> {
    await (this.#swept ??= this.#sweep().catch((err) => this.services.platform.log('Layer sweep failed', err)))
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
    const { platform } = this.services
    const sqlite = await platform.sqlite()
    let layer: Layer | undefined
    let created = false
    // Evictable: an unused layer gives its memory back and reopens on its next request.
    const db = await Database.open(sqlite, platform.store, imageName(meta.resourceId), (sql) => {
      created = sql.selectValue(`SELECT 1 FROM sqlite_master WHERE name = 'layer_meta'`) === undefined
      migrateLayer(sql, meta)
    }, { evictable: true, onConnect: (sql) => registerFunctions(sql, (blob) => {
      const g = layer?.filter && decodeGpkg(blob)
      return !!g && intersects(g, layer!.filter!)
    }) })
    layer = new Layer(meta.resourceId, db)
    // An existing database may predate a field change; a fresh one was made with these fields.
    if (created) layer.signature = fieldsSignature(meta.fields)
    return layer
  }

  /** Closes and deletes the layer's database if resource `id` no longer exists. */
  scheduleDrop(id: number): void {
    void this.services.main.read(async (db) => {
      if (db.selectValue(`SELECT 1 FROM resource WHERE id = ?`, [id])) return
      await this.#drop(id)
    }).catch((err) => this.services.platform.log(`Dropping layer ${id} failed`, err))
  }

  async #drop(id: number): Promise<void> {
    const { store } = this.services.platform
    const p = this.#layers.get(id)
    this.#layers.delete(id)
    this.#metas.delete(id)
    const open = p && await p.catch(() => undefined)
    // The attachments' bytes are blobs of their own: delete them before the image that lists
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
    const { platform } = this.services
    if (!(await platform.store.listDatabases()).includes(imageName(id))) return undefined
    return Database.open(await platform.sqlite(), platform.store, imageName(id), () => {})
  }

  /** Deletes layer databases whose resource is gone (a drop interrupted by a stopped worker). */
  async #sweep(): Promise<void> {
    const names = await this.services.platform.store.listDatabases()
    const ids = names.map((n) => /^layer-(\d+)$/.exec(n)?.[1]).filter((x): x is string => !!x).map(Number)
    if (!ids.length) return
    await this.services.main.read(async (db) => {
      for (const id of ids) {
        if (!db.selectValue(`SELECT 1 FROM resource WHERE id = ? AND cls = 'vector_layer'`, [id])) await this.#drop(id)
      }
    })
  }
}

/** The layer registry of an app (one per `Services`). */
export function layersOf(services: Services): LayerRegistry {
  let r = BY_SERVICES.get(services)
  if (!r) {
    r = new LayerRegistry(services)
    BY_SERVICES.set(services, r)
  }
  return r
}

/**
 * Called by the vector layer class while the main transaction that deletes `id` runs.
 * Without a registry no layer database is open; the next sweep removes the image.
 */
export function layerRemoved(main: SqlDb, id: number): void {
  BY_MAIN.get(main)?.scheduleDrop(id)
}
