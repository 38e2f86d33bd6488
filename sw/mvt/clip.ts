/**
 * @module mvt/clip
 * Clipping flat coordinate arrays (tile units) to the tile's padded box, as the original
 * clips to the padded tile before encoding (`ST_ClipByBox2D`). Rings are cut with
 * Sutherland–Hodgman, one box side at a time; lines are cut into the runs that lie inside.
 *
 *        k1        k2            a ring crossing a side gets the crossing points;
 *   ------+---------+------      a line leaving and re-entering becomes two lines;
 *    out  |   in    |  out       points outside are dropped.
 */
import type { Bbox } from '../geo/geometry.ts'

/** Points inside the box (boundary included). */
export function clipPoints(points: number[], box: Bbox): number[] {
  const out: number[] = []
  for (let i = 0; i < points.length; i += 2) {
    const x = points[i]!, y = points[i + 1]!
    if (x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3]) out.push(x, y)
  }
  return out
}

/** One side of the box: keep `sign * coord[axis] <= sign * k`. */
function clipSide(ring: number[], axis: 0 | 1, k: number, sign: 1 | -1): number[] {
  const out: number[] = []
  const n = ring.length
  if (n < 6) return out
  let px = ring[n - 2]!, py = ring[n - 1]!
  let pIn = sign * (axis === 0 ? px : py) <= sign * k
  for (let i = 0; i < n; i += 2) {
    const x = ring[i]!, y = ring[i + 1]!
    const cIn = sign * (axis === 0 ? x : y) <= sign * k
    if (cIn !== pIn) {
      // The crossing point of the edge with the side.
      if (axis === 0) out.push(k, py + ((y - py) * (k - px)) / (x - px))
      else out.push(px + ((x - px) * (k - py)) / (y - py), k)
    }
    if (cIn) out.push(x, y)
    px = x; py = y; pIn = cIn
  }
  return out
}

/**
 * A closed ring (first position repeated last) clipped to the box: closed again, or `null`
 * when nothing of it is inside.
 */
export function clipRing(ring: number[], box: Bbox): number[] | null {
  // Work on the open ring: the closing position would count twice.
  let r = ring.slice(0, ring.length - 2)
  r = clipSide(r, 0, box[0], -1)
  r = clipSide(r, 0, box[2], 1)
  r = clipSide(r, 1, box[1], -1)
  r = clipSide(r, 1, box[3], 1)
  if (r.length < 6) return null
  r.push(r[0]!, r[1]!)
  return r
}

/** The parameter range [t0, t1] of segment a→b inside the box (Liang–Barsky), or null. */
function segmentRange(ax: number, ay: number, bx: number, by: number, box: Bbox): [number, number] | null {
  let t0 = 0, t1 = 1
  const dx = bx - ax, dy = by - ay
  const p = [-dx, dx, -dy, dy]
  const q = [ax - box[0], box[2] - ax, ay - box[1], box[3] - ay]
  for (let i = 0; i < 4; i++) {
    if (p[i] === 0) {
      if (q[i]! < 0) return null // parallel to this side and outside it
      continue
    }
    const t = q[i]! / p[i]!
    if (p[i]! < 0) { if (t > t1) return null; if (t > t0) t0 = t }
    else { if (t < t0) return null; if (t < t1) t1 = t }
  }
  return [t0, t1]
}

/** A line clipped to the box: the runs inside, each a line of its own. */
export function clipLine(line: number[], box: Bbox): number[][] {
  const out: number[][] = []
  let current: number[] | null = null
  for (let i = 0; i + 3 < line.length; i += 2) {
    const ax = line[i]!, ay = line[i + 1]!, bx = line[i + 2]!, by = line[i + 3]!
    const r = segmentRange(ax, ay, bx, by, box)
    if (!r) { current = null; continue }
    const [t0, t1] = r
    if (!current || t0 > 0) {
      current = [ax + (bx - ax) * t0, ay + (by - ay) * t0]
      out.push(current)
    }
    current.push(ax + (bx - ax) * t1, ay + (by - ay) * t1)
    if (t1 < 1) current = null // left the box inside this segment
  }
  return out
}
