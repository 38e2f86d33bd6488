/**
 * @module geo/reproject
 * Coordinate transformation between EPSG systems with proj4. Transformers are built once
 * per pair; an unknown code is reported to the caller, who answers 422.
 */
import proj4 from 'proj4'
import { mapPositions, type Bbox, type Geometry, type Position } from './geometry.ts'
import { projectionOf } from './srs.ts'

export type Transform = (p: Position) => Position

export class UnknownSrsError extends Error {
  constructor(readonly srsId: number) {
    super(`Spatial reference system id = ${srsId} is not known.`)
  }
}

const CACHE = new Map<string, Transform>()
const IDENTITY: Transform = (p) => p

/** A function mapping positions from `from` to `to`; throws `UnknownSrsError`. */
export function transformer(from: number, to: number): Transform {
  const a = projectionOf(from)
  if (!a) throw new UnknownSrsError(from)
  const b = projectionOf(to)
  if (!b) throw new UnknownSrsError(to)
  if (from === to) return IDENTITY
  const key = `${from}:${to}`
  let t = CACHE.get(key)
  if (!t) {
    const conv = proj4(a.proj4, b.proj4)
    t = (p) => {
      const q = conv.forward([p[0]!, p[1]!])
      return p.length > 2 ? [q[0]!, q[1]!, p[2]!] : [q[0]!, q[1]!]
    }
    CACHE.set(key, t)
  }
  return t
}

export function reproject(g: Geometry, from: number, to: number): Geometry {
  if (from === to) { transformer(from, to); return g }
  return mapPositions(g, transformer(from, to))
}

/**
 * A box transformed into `to`: its edges are sampled so curved projections are bounded
 * (exact for axis-aligned pairs such as 3857 ↔ 4326).
 */
export function reprojectBbox(b: Bbox, from: number, to: number): Bbox {
  const t = transformer(from, to)
  if (from === to) return b
  const out: Bbox = [Infinity, Infinity, -Infinity, -Infinity]
  const n = 8
  for (let i = 0; i <= n; i++) {
    const fx = b[0] + ((b[2] - b[0]) * i) / n
    const fy = b[1] + ((b[3] - b[1]) * i) / n
    for (const p of [[fx, b[1]], [fx, b[3]], [b[0], fy], [b[2], fy]]) {
      const q = t(p)
      out[0] = Math.min(out[0], q[0]!); out[1] = Math.min(out[1], q[1]!)
      out[2] = Math.max(out[2], q[0]!); out[3] = Math.max(out[3], q[1]!)
    }
  }
  return out
}
