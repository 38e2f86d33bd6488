/**
 * @module port/assemble
 * How an implementation builds the `tx` of a unit of work or read from its repositories: each
 * made on first use over the transaction's connection, and every call checked for liveness, so
 * a `tx` used after its `fn` settled throws instead of writing outside any transaction.
 */

/** `repo` with every method refusing calls once its unit of work has ended. */
function guarded<R extends object>(repo: R, live: () => void): R {
  const out = {} as Record<string, unknown>
  for (const [k, v] of Object.entries(repo)) {
    out[k] = typeof v === 'function' ? (...args: unknown[]) => { live(); return (v as (...a: unknown[]) => unknown)(...args) } : v
  }
  return out as R
}

/** A `tx` whose members are `made` over `conn` (lazily, guarded by `live`), plus `extra` as it is. */
export function assembleTx<Tx extends object, C>(conn: C, live: () => void, made: Record<string, (conn: C) => object>, extra: object): Tx {
  const tx = { ...extra } as Record<string, unknown>
  for (const [key, make] of Object.entries(made)) {
    let repo: object | undefined
    Object.defineProperty(tx, key, { enumerable: true, get() { live(); return repo ??= guarded(make(conn), live) } })
  }
  return tx as Tx
}
