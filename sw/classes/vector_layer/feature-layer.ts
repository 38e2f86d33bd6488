// port: legacy-sql (issue 22)
/**
 * @module classes/vector_layer/feature-layer
 * A vector layer as the feature and sync components see it: its reads and writes (the feature
 * port) over the layer's database, and the replica that adds the sync bookkeeping to them.
 */
import type { FeatureLayer, FeatureRead, FeatureWrite, GpkgStorage, LayerMeta, WriteActor } from '../../feature/types.ts'
import type { SqlDb } from '../../store/database.ts'
import type { Link, Replica, ReplicaRead, ReplicaWrite } from '../../sync/types.ts'
import { ReplicaTx } from './replica.ts'
import { LayerReader } from './reader.ts'
import { LayerWriter } from './writer.ts'
import type { Layer } from './layer.ts'
import { gpkgStorage } from './storage.ts'

/** A layer as the feature component sees it: metadata, reads and writes. */
export class VectorFeatureLayer implements FeatureLayer {
  readonly gpkg: GpkgStorage

  constructor(readonly meta: LayerMeta, readonly layer: Layer, readonly now: () => Date) {
    this.gpkg = gpkgStorage(layer, meta)
  }

  get version(): number {
    return this.layer.db.version
  }

  read<T>(fn: (tx: FeatureRead) => T): Promise<T> {
    return this.readWith((r) => fn(r))
  }

  write<T>(fn: (tx: FeatureWrite) => T, actor: WriteActor = {}): Promise<T> {
    return this.writeWith((w) => fn(w), actor)
  }

  readWith<T>(fn: (tx: LayerReader, db: SqlDb) => T): Promise<T> {
    return this.layer.db.read((db) => fn(new LayerReader(db, this.layer, this.meta), db))
  }

  /** A write with the writer and its database (the sync bookkeeping shares the transaction). */
  async writeWith<T>(fn: (tx: LayerWriter, db: SqlDb) => T, actor: WriteActor = {}): Promise<T> {
    let version: number | undefined
    const r = await this.layer.db.write((db) => {
      const w = new LayerWriter(db, this.layer, this.meta, this.now().toISOString().slice(0, 19), this.layer.db.sqlite,
        actor.userId ?? null)
      try {
        const out = fn(w, db)
        w.finish()
        version = w.version
        return out
      } catch (err) {
        w.abort()
        throw err
      }
    })
    if (version !== undefined) this.layer.latest = version
    return r
  }
}

/** Runs `fn` with `r`, finalizing its statements after. */
function using<T>(r: ReplicaTx, fn: (r: ReplicaTx) => T): T {
  try {
    return fn(r)
  } finally {
    r.close()
  }
}

/** A layer linked to a remote layer: its features and its sync bookkeeping in one transaction. */
export class VectorReplica implements Replica {
  constructor(readonly layer: VectorFeatureLayer, readonly link: Link) {}

  get meta(): LayerMeta {
    return this.layer.meta
  }

  read<T>(fn: (tx: FeatureRead, r: ReplicaRead) => T): Promise<T> {
    return this.layer.readWith((tx, db) => using(new ReplicaTx(db, () => this.#now()), (r) => fn(tx, r)))
  }

  write<T>(fn: (tx: FeatureWrite, r: ReplicaWrite) => T, actor?: WriteActor): Promise<T> {
    return this.layer.writeWith((tx, db) => using(new ReplicaTx(db, () => this.#now(), () => tx.flush()), (r) => fn(tx, r)), actor)
  }

  #now(): string {
    return this.layer.now().toISOString().slice(0, 19)
  }
}
