/**
 * @module postgres/features/tables
 * `FeatureTables` of the PostgreSQL port: each vector layer's PostGIS tables (schema.ts), made
 * or brought up to the layer's fields when it is opened, dropped with their attachments' blobs
 * once the layer's resource is gone. A layer's table changes and writes run under its advisory
 * lock, so processes opening one layer together make its tables once. Each process remembers
 * which field list it last brought a layer to, so an open costs no statement until the fields
 * change. Ingest (`openSource`, `load`) and sync (`replica`) come next.
 */
import type pg from 'pg'
import type { LayerMeta } from '../../feature/types.ts'
import { fieldsSignature, type FeatureTables } from '../../port/features.ts'
import type { BlobStore } from '../../port/port.ts'
import type { Frames } from '../../port/frames.ts'
import type { PgConn } from '../conn.ts'
import { PgUnits } from '../uow.ts'
import type { PgTokens } from '../tokens.ts'
import { layerLock } from '../tx.ts'
import { dropTables, ensureTables, listedBlobs, storedLayers } from './schema.ts'
import { PgFeatureLayer } from './layer.ts'

const conn = (db: PgConn) => db

function notYet(what: string): never {
  throw new Error(`${what} is not built yet on PostgreSQL (issue 23).`)
}

export class PgFeatureTables implements FeatureTables {
  /** Each layer's units of work (its lock, its FIFO queue in this process). */
  readonly #units = new Map<number, PgUnits>()
  /** The field list each layer's columns were last brought to by this process (`fieldsSignature`). */
  readonly #signatures = new Map<number, string>()
  /** Reads across layers (the list of tables). */
  readonly #catalog: PgUnits

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
    return new PgFeatureLayer(meta, units, this.tokens, now)
  }

  async replica(): Promise<never> {
    return notYet('Sync of a vector layer (replica)')
  }

  openSource(): never {
    return notYet('Ingest of a vector layer (openSource)')
  }

  async load(): Promise<never> {
    return notYet('Ingest of a vector layer (load)')
  }

  /** The attachments' blobs go before the tables that list them, so an interrupted drop is finished by the next sweep. */
  async drop(id: number): Promise<void> {
    const units = this.#unitsOf(id)
    this.#signatures.delete(id)
    for (const b of await units.read(conn, (db) => listedBlobs(db, id))) await this.blobs.deleteBlob(b)
    await units.write(conn, (db) => dropTables(db, id), (db) => this.tokens.move(db, [`layer:${id}`]))
  }

  stored(): Promise<number[]> {
    return this.#catalog.read(conn, storedLayers)
  }

  /** No history yet on PostgreSQL: no versions. */
  latest(): number {
    return 0
  }
}
