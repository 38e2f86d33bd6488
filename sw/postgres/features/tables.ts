/**
 * @module postgres/features/tables
 * `FeatureTables` of the PostgreSQL port: each vector layer's PostGIS tables (schema.ts), made
 * or brought up to the layer's fields when it is opened, dropped with their attachments' blobs
 * once the layer's resource is gone. A layer's table changes and writes run under its advisory
 * lock, so processes opening one layer together make its tables once. Each process remembers
 * which field list it last brought a layer to, so an open costs no statement until the fields
 * change. A layer's history starts anew when its versioning epoch differs from the one its tables
 * hold (as SQLite's `open` does), checked once per process and epoch. Ingest (`load`: ingest-load.ts)
 * fills a new layer's tables; a linked layer's replica is the layer with its sync bookkeeping (replica.ts).
 */
import type pg from 'pg'
import type { LayerMeta } from '../../feature/types.ts'
import type { Link } from '../../sync/types.ts'
import { fieldsSignature, type FeatureTables, type LoadPlan } from '../../port/features.ts'
import type { GpkgSource } from '../../ingest/vector-convert.ts'
import type { Progress } from '../../ingest/progress.ts'
import type { BlobStore } from '../../port/port.ts'
import type { Frames } from '../../port/frames.ts'
import type { PgConn } from '../conn.ts'
import { PgUnits } from '../uow.ts'
import type { PgTokens } from '../tokens.ts'
import { layerLock } from '../tx.ts'
import { dropTables, ensureTables, listedBlobs, releaseLayer, storedLayers, tablesOf } from './schema.ts'
import { historyEpoch, resetHistory } from './history-schema.ts'
import { latestVersion } from './versions.ts'
import { changedUnder, PgFeatureLayer } from './layer.ts'
import { loadFeatures } from './ingest-load.ts'
import { PgReplica } from './replica.ts'

/** The tx of the layers' own units of work here: the connection itself. */
const conn = (db: PgConn) => db

export class PgFeatureTables implements FeatureTables {
  /** Each layer's units of work (its lock, its FIFO queue in this process). */
  readonly #units = new Map<number, PgUnits>()
  /** The field list each layer's columns were last brought to by this process (`fieldsSignature`). */
  readonly #signatures = new Map<number, string>()
  /** Reads across layers (the list of tables). */
  readonly #catalog: PgUnits
  /** The versioning epoch each layer's history was last found in (or brought to) by this process. */
  readonly #epochs = new Map<number, number>()
  /**
   * Each versioned layer's newest version (`latest`), with the layer's change token it is
   * valid for: another process's write moves the token (`tokens.refresh`, once per request), so
   * the next `open` reads the number again; this process's writes set it themselves.
   */
  readonly #latest = new Map<number, { token: string; latest: number }>()

  constructor(readonly pool: pg.Pool, readonly tokens: PgTokens, readonly blobs: BlobStore, readonly frames?: Frames) {
    this.#catalog = new PgUnits(pool, 'layers', frames)
  }

  #unitsOf(id: number): PgUnits {
    let u = this.#units.get(id)
    if (!u) this.#units.set(id, u = new PgUnits(this.pool, `layer:${id}`, this.frames, layerLock(id)))
    return u
  }

  async open(meta: LayerMeta, now: () => Date): Promise<PgFeatureLayer> {
    const id = meta.resourceId
    const units = this.#unitsOf(id)
    const sig = fieldsSignature(meta.fields)
    if (this.#signatures.get(id) !== sig) {
      let changed = false
      await units.write(conn, async (db) => { changed = await ensureTables(db, meta) },
        async (db) => (changed ? this.tokens.move(db, [`layer:${id}`]) : () => {}))
      this.#signatures.set(id, sig)
    }
    const epoch = meta.versioning?.epoch ?? 0
    try {
      if (this.#epochs.get(id) !== epoch) await this.#startEpoch(meta, units, now)
      if (epoch) await this.#readLatest(id, units)
    } catch (err) {
      changedUnder(id, err)
    }
    return new PgFeatureLayer(meta, units, this.tokens, now, (v) => {
      if (v !== undefined) this.#latest.set(id, { token: this.tokens.current(`layer:${id}`), latest: v })
    })
  }

  /**
   * Versioning was turned on or off (or on again) since the history in the tables was written:
   * it starts anew for the epoch of `meta` (reference §12), and files only the old history kept
   * go. Asked once per process and epoch.
   */
  async #startEpoch(meta: LayerMeta, units: PgUnits, now: () => Date): Promise<void> {
    const id = meta.resourceId
    const epoch = meta.versioning?.epoch ?? 0
    // Mostly the tables hold this epoch already (another process, or an earlier run, made it): a read says so.
    if (await units.read(conn, (db) => historyEpoch(db, tablesOf(id))) !== epoch) await this.#resetHistory(meta, units, now)
    this.#epochs.set(id, epoch)
    this.#latest.delete(id)
  }

  /** Resets the history under the layer's lock, unless another process did meanwhile: processes opening it together reset it once. */
  async #resetHistory(meta: LayerMeta, units: PgUnits, now: () => Date): Promise<void> {
    const id = meta.resourceId
    const epoch = meta.versioning?.epoch ?? 0
    let orphans: string[] | undefined
    await units.write(conn, async (db) => {
      const t = tablesOf(id)
      orphans = await historyEpoch(db, t) === epoch ? undefined
        : await resetHistory(db, t, epoch, now().toISOString().slice(0, 19), meta.versioning?.userId ?? null)
    }, async (db) => (orphans ? this.tokens.move(db, [`layer:${id}`]) : () => {}))
    for (const b of orphans ?? []) await this.blobs.deleteBlob(b).catch(() => undefined)
  }

  /** Reads layer `id`'s newest version unless the one known is still valid (its token has not moved). */
  async #readLatest(id: number, units: PgUnits): Promise<void> {
    // The token before the read: a write committed meanwhile moves it, so the next open reads again.
    const token = this.tokens.current(`layer:${id}`)
    if (this.#latest.get(id)?.token === token) return
    this.#latest.set(id, { token, latest: await units.read(conn, (db) => latestVersion(db, tablesOf(id))) })
  }

  /** The layer's features with its sync bookkeeping (replica.ts), in the layer's own transactions. */
  async replica(meta: LayerMeta, link: Link, now: () => Date): Promise<PgReplica> {
    return new PgReplica(await this.open(meta, now), link)
  }

  /**
   * Makes and fills the tables of a new layer in one unit of work of the layer (its lock held):
   * a refused file, a cancel or a failure rolls it back, leaving no table. The same transaction
   * records the ingest's hold on it (`outpost_layer_pending`): until `settle`, no process's
   * `stored()` lists it, so no sweep takes it for an orphan before its resource is written.
   */
  async load(src: GpkgSource, plan: LoadPlan, progress: Progress, signal?: AbortSignal): Promise<{ count: number; settle(): void }> {
    const id = plan.meta.resourceId
    const units = this.#unitsOf(id)
    const count = await units.write(conn, (db) => loadFeatures(db, src, plan, progress, signal),
      (db) => this.tokens.move(db, [`layer:${id}`]))
    this.#signatures.set(id, fieldsSignature(plan.meta.fields))
    let held = true
    // Synchronous for the caller; the release is one statement after it, and a lost one only
    // delays the sweep of an orphan (the hold lapses).
    const settle = () => {
      if (held) void units.write(conn, (db) => releaseLayer(db, id)).catch(() => undefined)
      held = false
    }
    return { count, settle }
  }

  /** The attachments' blobs go before the tables that list them, so an interrupted drop is finished by the next sweep. */
  async drop(id: number): Promise<void> {
    const units = this.#unitsOf(id)
    this.#signatures.delete(id)
    this.#epochs.delete(id)
    this.#latest.delete(id)
    for (const b of await units.read(conn, (db) => listedBlobs(db, id))) await this.blobs.deleteBlob(b)
    await units.write(conn, (db) => dropTables(db, id), (db) => this.tokens.move(db, [`layer:${id}`]))
  }

  stored(): Promise<number[]> {
    return this.#catalog.read(conn, storedLayers)
  }

  /** The newest version of versioned layer `id` as its last open or write here saw it; 0 when not known. */
  latest(id: number): number {
    return this.#latest.get(id)?.latest ?? 0
  }
}
