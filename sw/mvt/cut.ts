/**
 * @module mvt/cut
 * One feature's shape made ready for the tile: clipped to the padded box, simplified,
 * rounded to the integer grid, degenerate parts dropped and polygon rings wound as MVT
 * wants them (outer rings clockwise on screen, holes counter-clockwise).
 */
import type { Bbox } from '../geo/geometry.ts'
import { clipLine, clipPoints, clipRing } from './clip.ts'
import { LINE, POINT, POLYGON, partsBbox, type TileShape } from './shape.ts'
import { quantize, reverseRing, ringArea2, simplify } from './simplify.ts'

const inside = (b: Bbox, box: Bbox) => b[0] >= box[0] && b[1] >= box[1] && b[2] <= box[2] && b[3] <= box[3]

function finishRing(ring: number[], tolerance: number, outer: boolean): number[] | null {
  let r = quantize(simplify(ring, tolerance))
  if (r[0] !== r[r.length - 2] || r[1] !== r[r.length - 1]) r.push(r[0]!, r[1]!)
  if (r.length < 8) return null // fewer than three distinct positions
  const area = ringArea2(r)
  if (area === 0) return null
  if ((area > 0) !== outer) r = reverseRing(r)
  return r
}

/** The shape cut for the tile, or `null` when nothing of it is left. */
export function cutShape(shape: TileShape, box: Bbox, tolerance: number): TileShape | null {
  switch (shape.type) {
    case POINT: {
      const pts = clipPoints(shape.points, box)
      for (let i = 0; i < pts.length; i++) pts[i] = Math.round(pts[i]!)
      return pts.length ? { type: POINT, points: pts } : null
    }
    case LINE: {
      const whole = inside(partsBbox(shape.lines), box)
      const lines: number[][] = []
      for (const line of shape.lines) {
        for (const part of whole ? [line] : clipLine(line, box)) {
          const q = quantize(simplify(part, tolerance))
          if (q.length >= 4) lines.push(q)
        }
      }
      return lines.length ? { type: LINE, lines } : null
    }
    case POLYGON: {
      const polygons: number[][][] = []
      for (const poly of shape.polygons) {
        const whole = inside(partsBbox(poly.slice(0, 1)), box)
        const rings: number[][] = []
        for (let i = 0; i < poly.length; i++) {
          const clipped = whole ? poly[i]! : clipRing(poly[i]!, box)
          const r = clipped && finishRing(clipped, tolerance, i === 0)
          if (r) rings.push(r)
          else if (i === 0) break // no outer ring: the holes go with it
        }
        if (rings.length) polygons.push(rings)
      }
      return polygons.length ? { type: POLYGON, polygons } : null
    }
  }
}
