/**
 * @module postgres/features/layer
 * A vector layer's feature port on PostGIS (`FeatureLayer`). A read is one REPEATABLE READ READ
 * ONLY transaction; a write is one transaction under the layer's advisory lock (tx.ts
 * `layerLock`: the writes of every process on one layer run one at a time, those of different
 * layers side by side, none under the main lock), which moves the `layer:<id>` change counter
 * last, so another process sees the write on its next request (`tokens.refresh`). Both run on
 * the layer's own `PgUnits` (FIFO in this process, retried on a serialization failure or
 * deadlock: `fn` may run twice). A versioned layer's write is one version (writer.ts) whose
 * number `onVersion` hears after the commit. No `gpkg`: that is SQLite's fast path; a vector tile
 * is PostGIS's own, one `ST_AsMVT` statement outside a transaction (tile.ts), and the other
 * data-out paths fall back to these reads.
 */
import { ApiError, operationalError } from '../../core/error.ts'
import { resourceNotFound } from '../../resource/errors.ts'
import { fieldsChanged } from '../../feature/errors.ts'
import type { FeatureLayer, FeatureRead, FeatureWrite, LayerMeta, WriteActor } from '../../feature/types.ts'
import type { ChangeScope, PendingRefresh } from '../../port/port.ts'
import type { PgConn } from '../conn.ts'
import type { PgUnits } from '../uow.ts'
import { PgPendingRefresh, type PgTokens } from '../tokens.ts'
import { PgLayerReader } from './reader.ts'
import { PgLayerWriter } from './writer.ts'
import { tablesOf } from './schema.ts'
import { ownColumns } from './filter.ts'
import { engineTile, type EngineTileOptions, type TileAt, type TileTable } from './tile.ts'

/**
 * The layer changed under a request that had already looked it up, never a 500:
 * - its tables went: another process (or this one) deleted the layer between the request's
 *   lookup of the resource and its statement (PostgreSQL: 42P01, undefined table). The answer is
 *   the one the request gets a moment later, the resource's 404;
 * - a column of a field it knew went: the field was deleted meanwhile and a process brought the
 *   table up to the new field list (schema.ts `ensureTables`; 42703 naming a `fld_` column). 409:
 *   sent again, the request runs with the fields as they are.
 */
export function changedUnder(id: number, err: unknown): never {
  const e = err as { code?: string; message?: string }
  if (e.code === '42P01') throw resourceNotFound(id)
  if (e.code === '42703' && /\bfld_\d+\b/.test(e.message ?? '')) throw fieldsChanged(id)
  throw err
}

export class PgFeatureLayer implements FeatureLayer {
  readonly #scope: ChangeScope

  /** `onVersion`: after a committed write, the version it made (`undefined`: none). */
  constructor(readonly meta: LayerMeta, readonly units: PgUnits, readonly tokens: PgTokens, readonly now: () => Date,
    readonly onVersion: (version: number | undefined) => void = () => {}) {
    this.#scope = `layer:${meta.resourceId}`
  }

  token(): string {
    return this.tokens.current(this.#scope)
  }

  /**
   * A database that fails the tile's statement is a 503 (the request changed nothing), never a
   * 500. A refresh the request put off on this port is carried by the statement (tokens.ts).
   */
  async tile(t: TileAt, opts: EngineTileOptions, pending?: PendingRefresh): Promise<Uint8Array> {
    const carry = pending instanceof PgPendingRefresh && pending.tokens === this.tokens && !pending.done ? pending : undefined
    const table: TileTable = { from: `${tablesOf(this.meta.resourceId).features} f`, cols: ownColumns(this.meta.srs), srid: this.meta.srs,
      meta: this.meta }
    try {
      return await this.units.once((conn) => engineTile(conn, table, t, opts, carry))
    } catch (err) {
      if (err instanceof ApiError) throw err
      throw operationalError(`The database failed to cut tile ${t.z}/${t.x}/${t.y}: ${(err as Error)?.message ?? String(err)}`, err)
    }
  }

  read<T>(fn: (tx: FeatureRead) => Promise<T>): Promise<T> {
    return this.readWith((tx) => fn(tx))
  }

  /** A read whose `fn` also gets its connection (the replica's bookkeeping reads in the same snapshot). */
  readWith<T>(fn: (tx: PgLayerReader, conn: PgConn, live: () => void) => Promise<T>): Promise<T> {
    return this.units.read((conn, live) => ({ tx: new PgLayerReader(conn, this.meta, live), conn, live }),
      ({ tx, conn, live }) => fn(tx, conn, live)).catch((err: unknown) => changedUnder(this.meta.resourceId, err))
  }

  write<T>(fn: (tx: FeatureWrite) => Promise<T>, actor: WriteActor = {}): Promise<T> {
    return this.writeWith((tx) => fn(tx), actor)
  }

  /** A write whose `fn` also gets its connection (the replica's bookkeeping is written in the same transaction). */
  async writeWith<T>(fn: (tx: PgLayerWriter, conn: PgConn, live: () => void) => Promise<T>, actor: WriteActor = {}): Promise<T> {
    let w: PgLayerWriter | undefined
    const make = (conn: PgConn, live: () => void) =>
      ({ tx: (w = new PgLayerWriter(conn, this.meta, live, this.now().toISOString().slice(0, 19), actor.userId ?? null)), conn, live })
    const out = await this.units.write(make, ({ tx, conn, live }) => fn(tx, conn, live),
      async (conn) => {
        await w!.finish()
        return this.tokens.move(conn, [this.#scope])
      }).catch((err: unknown) => changedUnder(this.meta.resourceId, err))
    this.onVersion(w!.version)
    return out
  }
}
