/**
 * @module core/json-depth
 * How deeply a parsed JSON value nests. Recursive code downstream (validation messages,
 * `JSON.stringify`, SQLite's JSON functions) overflows the stack on a value nested thousands
 * deep, so bodies are measured once, without recursion, right after parsing.
 */

/** Whether `value` nests arrays and objects more than `max` levels deep. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  // An explicit stack of [value, depth]: the walk itself must not recurse.
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length) {
    const [v, depth] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (depth + 1 > max) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}
