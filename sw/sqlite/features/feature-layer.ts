/**
 * @module sqlite/features/feature-layer
 * A vector layer as the feature and sync components see it: its reads and writes (the feature
 * port) over the layer's database, and the replica that adds the sync bookkeeping to them.
 * `FeatureTables.open`/`replica` (tables.ts) hand them out; the class never sees `Layer`.
 */
import type { FeatureInput, FeatureLayer, FeatureRead, FeatureUpdate, FeatureWrite, GpkgStorage, LayerMeta, WriteActor } from '../../feature/types.ts'
import type { SqlDb } from '../../store/database.ts'
import type { Link, Replica, ReplicaRead, ReplicaWrite } from '../../sync/types.ts'
import { ReplicaTx } from './replica.ts'
import { LayerReader } from './reader.ts'
import { LayerWriter } from './writer.ts'
import type { Layer } from './layer.ts'
import { gpkgStorage } from './gpkg.ts'

/** Members of the ports that stay synchronous: `recordRequest` only remembers (FeatureWrite). */
const SYNCHRONOUS = new Set<PropertyKey>(['recordRequest'])
/** Members that are ports themselves (`tx.history`, `tx.historyWrite`), wrapped the same way. */
const NESTED = new Set<PropertyKey>(['history', 'historyWrite'])

/**
 * The promise-returning port over a synchronous implementation (`feature/types.ts` "the
 * synchronous shape"): each method call is one synchronous statement run whose answer (or
 * throw) becomes a settled promise, so a listing costs one await for its whole page. A call
 * after the transaction has ended throws (`live`), so a leaked `tx` cannot write outside it;
 * plain members (`orphanBlobs`, `historyWrite.version`) stay readable after it.
 */
function promised<T>(impl: object, live: () => void): T {
  const wrapped = new Map<PropertyKey, unknown>()
  return new Proxy(impl, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (value === undefined || value === null) return value
      let w = wrapped.get(key)
      if (w === undefined) {
        // Bound to the implementation: its methods use private fields, which a proxy lacks.
        if (SYNCHRONOUS.has(key) && typeof value === 'function') {
          w = value.bind(target)
        } else if (typeof value === 'function') {
          w = (...args: unknown[]) => {
            try {
              live()
              return Promise.resolve(value.apply(target, args))
            } catch (err) {
              return Promise.reject(err)
            }
          }
        } else if (NESTED.has(key)) {
          w = promised(value as object, live)
        } else {
          return value
        }
        wrapped.set(key, w)
      }
      return w
    },
  }) as T
}

/** A `live` check for one transaction, and the call that ends it. */
function lifetime(): { live: () => void; end: () => void } {
  let open = true
  return {
    live: () => {
      if (!open) throw new Error('The layer transaction has ended: its tx cannot be used any more.')
    },
    end: () => { open = false },
  }
}

/** A layer as the feature component sees it: metadata, reads and writes. */
export class VectorFeatureLayer implements FeatureLayer {
  readonly gpkg: GpkgStorage

  constructor(readonly meta: LayerMeta, readonly layer: Layer, readonly now: () => Date) {
    this.gpkg = gpkgStorage(layer, meta)
  }

  /** The layer database's version: it moves after a saved write, a failed save and a reload after a failure (not an eviction's). */
  token(): string {
    return String(this.layer.db.version)
  }

  read<T>(fn: (tx: FeatureRead) => Promise<T>): Promise<T> {
    return this.readWith((tx) => fn(tx))
  }

  write<T>(fn: (tx: FeatureWrite) => Promise<T>, actor: WriteActor = {}): Promise<T> {
    return this.writeWith((tx) => fn(tx), actor)
  }

  /** A read with the port and the database it runs on (the sync bookkeeping shares it). */
  readWith<T>(fn: (tx: FeatureRead, db: SqlDb) => Promise<T>): Promise<T> {
    return this.layer.db.readAsync(async (db) => {
      const { live, end } = lifetime()
      try {
        return await fn(promised<FeatureRead>(new LayerReader(db, this.layer, this.meta), live), db)
      } finally {
        end()
      }
    })
  }

  /** A write with the port, the writer and its database (the sync bookkeeping shares the transaction). */
  async writeWith<T>(fn: (tx: FeatureWrite, db: SqlDb, w: LayerWriter) => Promise<T>, actor: WriteActor = {}): Promise<T> {
    let version: number | undefined
    const r = await this.layer.db.transaction(async (db) => {
      const w = new LayerWriter(db, this.layer, this.meta, this.now().toISOString().slice(0, 19), this.layer.db.sqlite,
        actor.userId ?? null)
      const { live, end } = lifetime()
      const sync = promised<Omit<FeatureWrite, 'createMany' | 'updateMany'>>(w, live)
      // A batch is one call that loops without awaiting (`create` only queues its feature: the
      // writer inserts queued ones in bulk): an await per feature cost a batch update of 10,000
      // 170 → 302 ms.
      const batch = <I, O>(one: (i: I) => O) => (items: readonly I[]): Promise<O[]> => {
        try {
          live()
          return Promise.resolve(items.map(one))
        } catch (err) {
          return Promise.reject(err)
        }
      }
      const many: Record<PropertyKey, unknown> = {
        createMany: batch((i: FeatureInput) => w.create(i)),
        updateMany: batch((u: FeatureUpdate) => w.update(u.fid, u.input)),
      }
      const tx = new Proxy(sync, { get: (t, k) => (Object.hasOwn(many, k) ? many[k] : Reflect.get(t, k)) }) as FeatureWrite
      try {
        const out = await fn(tx, db, w)
        live()
        w.finish()
        version = w.version
        return out
      } catch (err) {
        w.abort()
        throw err
      } finally {
        end()
      }
    })
    if (version !== undefined) this.layer.latest = version
    return r
  }
}

/** Runs `fn` with `r`, finalizing its statements after. */
async function using<T>(r: ReplicaTx, fn: (r: ReplicaTx) => Promise<T>): Promise<T> {
  try {
    return await fn(r)
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

  read<T>(fn: (tx: FeatureRead, r: ReplicaRead) => Promise<T>): Promise<T> {
    return this.layer.readWith((tx, db) => using(new ReplicaTx(db, () => this.#now()),
      (r) => fn(tx, promised<ReplicaRead>(r, () => {}))))
  }

  write<T>(fn: (tx: FeatureWrite, r: ReplicaWrite) => Promise<T>, actor?: WriteActor): Promise<T> {
    return this.layer.writeWith((tx, db, w) => using(new ReplicaTx(db, () => this.#now(), () => w.flush()),
      (r) => fn(tx, promised<ReplicaWrite>(r, () => {}))), actor)
  }

  #now(): string {
    return this.layer.now().toISOString().slice(0, 19)
  }
}
