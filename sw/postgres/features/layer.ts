/**
 * @module postgres/features/layer
 * A vector layer's feature port on PostGIS (`FeatureLayer`). A read is one REPEATABLE READ READ
 * ONLY transaction; a write is one transaction under the layer's advisory lock (tx.ts
 * `layerLock`: the writes of every process on one layer run one at a time, those of different
 * layers side by side, none under the main lock), which moves the `layer:<id>` change counter
 * last, so another process sees the write on its next request (`tokens.refresh`). Both run on
 * the layer's own `PgUnits` (FIFO in this process, retried on a serialization failure or
 * deadlock: `fn` may run twice). A versioned layer's write is one version (writer.ts) whose
 * number `onVersion` hears after the commit. No `gpkg`: that is SQLite's fast path; the data-out
 * paths fall back to these reads.
 */
import type { FeatureLayer, FeatureRead, FeatureWrite, LayerMeta, WriteActor } from '../../feature/types.ts'
import type { ChangeScope } from '../../port/port.ts'
import type { PgConn } from '../conn.ts'
import type { PgUnits } from '../uow.ts'
import type { PgTokens } from '../tokens.ts'
import { PgLayerReader } from './reader.ts'
import { PgLayerWriter } from './writer.ts'

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

  read<T>(fn: (tx: FeatureRead) => Promise<T>): Promise<T> {
    return this.readWith((tx) => fn(tx))
  }

  /** A read whose `fn` also gets its connection (the replica's bookkeeping reads in the same snapshot). */
  readWith<T>(fn: (tx: PgLayerReader, conn: PgConn, live: () => void) => Promise<T>): Promise<T> {
    return this.units.read((conn, live) => ({ tx: new PgLayerReader(conn, this.meta, live), conn, live }),
      ({ tx, conn, live }) => fn(tx, conn, live))
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
      })
    this.onVersion(w!.version)
    return out
  }
}
