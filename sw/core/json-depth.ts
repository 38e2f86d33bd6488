/**
 * @module core/json-depth
 * How deeply a parsed JSON value nests. Recursive code downstream (validation messages,
 * `JSON.stringify`, SQLite's JSON functions) overflows the stack on a value nested thousands
 * deep, so bodies are measured once, without recursion, right after parsing. On the path of
 * every batch write, so: two flat stacks, no allocation per node.
 */

/** Whether `value` nests arrays and objects more than `max` levels deep. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false
  const values: object[] = [value]
  const depths: number[] = [1]
  while (values.length) {
    const v = values.pop()!
    const depth = depths.pop()!
    if (depth > max) return true
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const child: unknown = v[i]
        if (typeof child === 'object' && child !== null) { values.push(child); depths.push(depth + 1) }
      }
    } else {
      for (const k in v) {
        const child: unknown = (v as Record<string, unknown>)[k]
        if (typeof child === 'object' && child !== null) { values.push(child); depths.push(depth + 1) }
      }
    }
  }
  return false
}
