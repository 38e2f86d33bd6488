/**
 * @module ingest/pending
 * Names of stored things (layer images) that an ingest in this process is still building:
 * no resource refers to them yet, and the sweeps that remove unreferenced images must leave
 * them alone until the ingest has either created its resource or given up. After a restart
 * nothing is pending, and what an interrupted ingest left is swept as usual.
 */
const PENDING = new Map<string, number>()

/** Marks `name` as being built; the returned function releases it (once). */
export function holdPending(name: string): () => void {
  PENDING.set(name, (PENDING.get(name) ?? 0) + 1)
  let held = true
  return () => {
    if (!held) return
    held = false
    const n = (PENDING.get(name) ?? 1) - 1
    if (n > 0) PENDING.set(name, n)
    else PENDING.delete(name)
  }
}

export function isPending(name: string): boolean {
  return PENDING.has(name)
}
