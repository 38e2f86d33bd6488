/**
 * @module sqlite/features/tables
 * `FeatureTables` of the SQLite port: one GeoPackage-shaped database per vector layer
 * (`layer-<id>`), opened on first use and kept, its columns kept in step with the field list,
 * its history restarted when the versioning epoch changes, and deleted with its attachments'
 * blobs once the layer's resource is gone. Each open database's change token is the port's
 * `layer:<id>` scope.
 */
import { Database } from '../../store/database.ts'
import type { Store } from '../../store/store.ts'
import { decodeGpkg } from '../../geo/gpkg.ts'
import { flatten, intersects } from '../../geo/flat.ts'
import type { LayerMeta } from '../../feature/types.ts'
import type { Link } from '../../sync/types.ts'
import { fieldsSignature, type FeatureTables, type LoadPlan } from '../../port/features.ts'
import type { GpkgSource } from '../../ingest/vector-convert.ts'
import type { SqliteSource } from '../gpkg-file/source.ts'
import type { Progress } from '../../ingest/progress.ts'
import { holdPending, isPending } from '../../ingest/pending.ts'
import type { SqliteTokens } from '../tokens.ts'
import { migrateLayer, registerFunctions, syncColumns } from './schema.ts'
import { historyEpoch, resetHistory } from './history-schema.ts'
import { latestVersion } from './versions.ts'
import { loadFeatures } from './ingest-load.ts'
import { Layer } from './layer.ts'
import { VectorFeatureLayer, VectorReplica } from './feature-layer.ts'

export const imageName = (resourceId: number) => `layer-${resourceId}`

export class SqliteFeatureTables implements FeatureTables {
  #layers = new Map<number, Promise<Layer>>()
  /** The layers whose opening finished, for what is read without waiting (`latest`). */
  #ready = new Map<number, Layer>()

  constructor(readonly sqlite: Database['sqlite'], readonly store: Store, readonly tokens: SqliteTokens) {}

  /** Layer `meta`'s feature port over its open database. */
  async open(meta: LayerMeta, now: () => Date): Promise<VectorFeatureLayer> {
    return new VectorFeatureLayer(meta, await this.#layer(meta, now), now)
  }

  /** Layer `meta`'s features with the bookkeeping of its `link` to a remote layer. */
  async replica(meta: LayerMeta, link: Link, now: () => Date): Promise<VectorReplica> {
    return new VectorReplica(await this.open(meta, now), link)
  }

  /** The open database of layer `meta`, its columns matching `meta.fields` and its history `meta`'s epoch. */
  async #layer(meta: LayerMeta, now: () => Date): Promise<Layer> {
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
    if (layer.epoch !== epoch) await this.#startEpoch(layer, epoch, meta.versioning?.userId ?? null, now)
    if (epoch && !layer.latest) layer.latest = await layer.db.read((db) => latestVersion(db))
    this.#ready.set(meta.resourceId, layer)
    return layer
  }

  latest(id: number): number {
    return this.#ready.get(id)?.latest ?? 0
  }

  /**
   * Builds the database of a new layer under its final name; the schema is made by the one
   * write that fills it, so a refused file writes nothing, and a failure deletes it. Until
   * `settle`, the sweep leaves it alone (`ingest/pending`). `src` is SQLite's
   * (sw/sqlite/gpkg-file/source.ts, the app's `GpkgSources` on every host): it is attached.
   */
  async load(src: GpkgSource, plan: LoadPlan, progress: Progress, signal?: AbortSignal): Promise<{ count: number; settle(): void }> {
    const name = imageName(plan.meta.resourceId)
    const settle = holdPending(name)
    try {
      const layer = await Database.open(this.sqlite, this.store, name, () => {})
      try {
        const { count } = await loadFeatures(this.sqlite, layer, src as SqliteSource, plan, progress, signal)
        return { count, settle }
      } finally {
        await layer.close()
      }
    } catch (err) {
      await this.store.deleteDatabase(name).catch(() => undefined)
      settle()
      throw err
    }
  }

  async stored(): Promise<number[]> {
    const names = await this.store.listDatabases()
    // A database an ingest is still building has no resource yet: it is not an orphan.
    return names.filter((n) => !isPending(n)).map((n) => /^layer-(\d+)$/.exec(n)?.[1]).filter((x): x is string => !!x).map(Number)
  }

  /**
   * Versioning was turned on or off (or on again) since the history in the database was
   * written: it starts anew for `epoch` (reference §12), and files only the old history
   * kept go.
   */
  async #startEpoch(layer: Layer, epoch: number, userId: number | null, now: () => Date): Promise<void> {
    const orphans = await layer.db.write((db) => {
      if (historyEpoch(db) === epoch) return []
      return resetHistory(db, epoch, now().toISOString().slice(0, 19), userId)
    })
    layer.epoch = epoch
    layer.latest = 0
    for (const b of orphans) await this.store.deleteBlob(b).catch(() => undefined)
  }

  async #open(meta: LayerMeta): Promise<Layer> {
    let created = false
    let layer: Layer | undefined
    // Evictable: an unused layer gives its memory back and reopens on its next request, so
    // its SQL functions are registered on every connection.
    const db = await Database.open(this.sqlite, this.store, imageName(meta.resourceId), (sql) => {
      created = sql.selectValue(`SELECT 1 FROM sqlite_master WHERE name = 'layer_meta'`) === undefined
      migrateLayer(sql, meta)
    }, { evictable: true, onConnect: (sql) => registerFunctions(sql, (blob) => {
      const g = layer?.filter && decodeGpkg(blob)
      return !!g && intersects(flatten(g), layer!.filter!)
    }) })
    layer = new Layer(meta.resourceId, db)
    this.tokens.track(`layer:${meta.resourceId}`, db)
    // An existing database may predate a field change; a fresh one was made with these fields.
    if (created) layer.signature = fieldsSignature(meta.fields)
    return layer
  }

  /** Closes and deletes the database of layer `id`, whose resource is gone. */
  async drop(id: number): Promise<void> {
    const p = this.#layers.get(id)
    this.#layers.delete(id)
    this.#ready.delete(id)
    this.tokens.track(`layer:${id}`, undefined)
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
      for (const b of blobs) await this.store.deleteBlob(b)
    }
    await this.store.deleteDatabase(imageName(id))
  }

  /** The saved database of layer `id` opened as it is (no migration), or `undefined`. */
  async #openExisting(id: number): Promise<Database | undefined> {
    if (!(await this.store.listDatabases()).includes(imageName(id))) return undefined
    return Database.open(this.sqlite, this.store, imageName(id), () => {})
  }
}
