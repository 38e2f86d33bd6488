/**
 * @module core/once
 * Starts something expensive on first use and shares it with every later caller; a failed
 * start is not remembered, so the next call tries again (engines, databases).
 */
export function sharedStart<T>(start: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () => {
    pending ??= start().catch((err: unknown) => {
      pending = undefined
      throw err
    })
    return pending
  }
}
