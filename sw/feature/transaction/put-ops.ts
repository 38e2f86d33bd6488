/**
 * @module feature/transaction/put-ops
 * What a PUT of a stored transaction's operations changes, decided on what is stored (no SQL:
 * each implementation reads the stored operations of the PUT's seqnums and writes the plan).
 * Sending the same operation again changes nothing (a retried PUT); a different one where an
 * operation without an error is stored is refused (its seqnum is the answer, nothing is
 * stored). One that failed a commit may be replaced or removed (a `null` payload).
 */

export type PutPlan = { clash: number } | { put: [number, string][]; removed: number[] }

export function planPut(stored: Map<number, { payload: string; error: unknown }>,
  items: readonly { seqnum: number; payload: string | null }[]): PutPlan {
  // What each seqnum holds after the items, one after the other (an item may follow another with its seqnum).
  const next = new Map<number, string | null>()
  for (const { seqnum, payload } of items) {
    const have = stored.get(seqnum)
    if (have && have.error === null) {
      if (payload === have.payload) continue
      if (payload !== null) return { clash: seqnum }
    }
    if (payload === null) stored.delete(seqnum)
    else stored.set(seqnum, { payload, error: null })
    next.set(seqnum, payload)
  }
  const changed = [...next]
  return {
    put: changed.filter((c): c is [number, string] => c[1] !== null),
    removed: changed.filter(([, p]) => p === null).map(([s]) => s),
  }
}
