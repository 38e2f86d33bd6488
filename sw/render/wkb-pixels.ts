/**
 * @module render/wkb-pixels
 * Reads a GeoPackage geometry blob straight into pixel coordinates of the image being
 * drawn: one pass over the WKB, no GeoJSON objects, and vertices closer than half a
 * pixel to the previous one dropped (a 20,000-polygon layer at a small scale is mostly such
 * vertices).
 */
import { gpkgWkbOffset } from '../geo/gpkg.ts'

/** Map coordinates → pixels: `px = (x - minX) * k`, `py = (maxY - y) * k`; `project` first when the layer's SRS differs. */
export interface PixelTransform {
  minX: number
  maxY: number
  /** Pixels per map unit. */
  k: number
  project?: (x: number, y: number) => [number, number]
}

/**
 * A geometry in pixels: flat `[x0, y0, x1, y1, …]` parts; polygons group their rings. The
 * parts are views of a buffer the next `toPixels` call reuses: use them before reading the
 * next feature.
 */
export interface PixelGeometry {
  kind: 'point' | 'line' | 'polygon'
  /** Points: one part per point; lines: one per linestring; polygons: one per ring. */
  parts: Float64Array[]
  /** Polygons: how many rings each polygon has, in order. */
  rings?: number[]
}

/** Vertices nearer than half a pixel to the last one kept add nothing visible. */
const MIN_STEP2 = 0.5 * 0.5

/** Coordinates of the feature being read; grows as needed and is reused (no allocation per ring). */
let arena = new Float64Array(1 << 14)
let used = 0

class Reader {
  view: DataView
  o: number
  le = true
  constructor(readonly blob: Uint8Array, offset: number, readonly t: PixelTransform) {
    this.view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
    this.o = offset
  }

  header(): { type: number; dim: number } {
    this.le = this.view.getUint8(this.o) === 1
    const code = this.view.getUint32(this.o + 1, this.le)
    this.o += 5
    if (code & 0xe0000000) {
      // EWKB: Z and M flags in the high bits.
      return { type: code & 0xff, dim: 2 + (code & 0x80000000 ? 1 : 0) + (code & 0x40000000 ? 1 : 0) }
    }
    const family = Math.floor(code / 1000)
    return { type: code % 1000, dim: family === 0 ? 2 : family === 3 ? 4 : 3 }
  }

  count(): number {
    const n = this.view.getUint32(this.o, this.le)
    this.o += 4
    return n
  }

  /** `n` positions as pixels, near-duplicates dropped (the last one always kept). */
  points(n: number, dim: number): Float64Array {
    const { view, le } = this
    const { minX, maxY, k, project } = this.t
    if (used + n * 2 > arena.length) {
      // Views handed out for this feature keep the old buffer alive.
      arena = new Float64Array(Math.max(arena.length * 2, n * 2))
      used = 0
    }
    const out = arena
    const start = used
    let m = start
    let px = NaN, py = NaN
    const stride = dim * 8
    for (let i = 0; i < n; i++) {
      let x = view.getFloat64(this.o, le), y = view.getFloat64(this.o + 8, le)
      this.o += stride
      if (project) [x, y] = project(x, y)
      x = (x - minX) * k
      y = (maxY - y) * k
      const dx = x - px, dy = y - py
      if (i === n - 1 || !(dx * dx + dy * dy < MIN_STEP2)) {
        out[m++] = x; out[m++] = y
        px = x; py = y
      }
    }
    used = m
    return out.subarray(start, m)
  }
}

function readInto(r: Reader, g: PixelGeometry): void {
  const { type, dim } = r.header()
  switch (type) {
    case 1: g.parts.push(r.points(1, dim)); return
    case 2: g.parts.push(r.points(r.count(), dim)); return
    case 3: {
      const n = r.count()
      for (let i = 0; i < n; i++) g.parts.push(r.points(r.count(), dim))
      g.rings!.push(n)
      return
    }
    case 4: case 5: case 6: case 7: {
      const n = r.count()
      for (let i = 0; i < n; i++) readInto(r, g)
      return
    }
    default: throw new Error(`Unsupported WKB geometry type ${type}.`)
  }
}

/** The geometry of a GeoPackage blob in pixels, or `undefined` when it is empty. */
export function toPixels(blob: Uint8Array, t: PixelTransform): PixelGeometry | undefined {
  const o = gpkgWkbOffset(blob)
  if (o === undefined) return undefined
  used = 0
  const r = new Reader(blob, o, t)
  // Peek the type to know the kind before reading.
  const code = r.view.getUint32(o + 1, r.view.getUint8(o) === 1)
  const base = (code & 0xe0000000 ? code & 0xff : code % 1000)
  const kind = base === 1 || base === 4 ? 'point' : base === 2 || base === 5 ? 'line' : 'polygon'
  const g: PixelGeometry = { kind, parts: [], rings: kind === 'polygon' ? [] : undefined }
  readInto(r, g)
  return g
}
