/**
 * @module mvt/simplify
 * Douglas–Peucker simplification of flat coordinate arrays in tile units, and the rounding
 * to the tile's integer grid that ends the cut. Explicit stack, no recursion.
 */

/** Squared distance from (px, py) to segment (ax, ay)–(bx, by). */
function segDist2(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  let dx = bx - ax, dy = by - ay
  if (dx !== 0 || dy !== 0) {
    const t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
    if (t > 1) { ax = bx; ay = by } else if (t > 0) { ax += dx * t; ay += dy * t }
  }
  dx = px - ax; dy = py - ay
  return dx * dx + dy * dy
}

/**
 * `coords` without the vertices that lie within `tolerance` of the simplified line; the
 * first and last vertices always stay (so a closed ring stays closed).
 */
export function simplify(coords: number[], tolerance: number): number[] {
  const n = coords.length / 2
  if (tolerance <= 0 || n <= 2) return coords
  const sq = tolerance * tolerance
  const keep = new Uint8Array(n)
  keep[0] = 1
  keep[n - 1] = 1
  const stack = [0, n - 1]
  while (stack.length) {
    const last = stack.pop()!, first = stack.pop()!
    let maxD = sq, index = -1
    const ax = coords[2 * first]!, ay = coords[2 * first + 1]!, bx = coords[2 * last]!, by = coords[2 * last + 1]!
    for (let i = first + 1; i < last; i++) {
      const d = segDist2(coords[2 * i]!, coords[2 * i + 1]!, ax, ay, bx, by)
      if (d > maxD) { maxD = d; index = i }
    }
    if (index >= 0) {
      keep[index] = 1
      if (index - first > 1) stack.push(first, index)
      if (last - index > 1) stack.push(index, last)
    }
  }
  const out: number[] = []
  for (let i = 0; i < n; i++) if (keep[i]) out.push(coords[2 * i]!, coords[2 * i + 1]!)
  return out
}

/** Rounds to integers and drops repeated consecutive positions. */
export function quantize(coords: number[]): number[] {
  const out: number[] = []
  let px = NaN, py = NaN
  for (let i = 0; i < coords.length; i += 2) {
    const x = Math.round(coords[i]!), y = Math.round(coords[i + 1]!)
    if (x === px && y === py) continue
    out.push(x, y)
    px = x; py = y
  }
  return out
}

/** Twice the signed area of a closed flat ring (positive = clockwise on screen, y down). */
export function ringArea2(ring: number[]): number {
  let s = 0
  for (let i = 0, n = ring.length - 2; i < n; i += 2) s += ring[i]! * ring[i + 3]! - ring[i + 2]! * ring[i + 1]!
  return s
}

/** The ring with its positions in reverse order. */
export function reverseRing(ring: number[]): number[] {
  const out = new Array<number>(ring.length)
  for (let i = 0, n = ring.length; i < n; i += 2) { out[n - 2 - i] = ring[i]!; out[n - 1 - i] = ring[i + 1]! }
  return out
}
