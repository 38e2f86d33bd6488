/**
 * @module geo/wkb
 * ISO WKB (little-endian out; either byte order in), 2D and Z. Z types are the ISO codes
 * (1001…1006), which GeoPackage uses; EWKB's Z flag is read as well.
 */
import { hasZ, type Geometry, type Position } from './geometry.ts'

const CODES: Record<Geometry['type'], number> = {
  Point: 1, LineString: 2, Polygon: 3, MultiPoint: 4, MultiLineString: 5, MultiPolygon: 6,
}
const TYPES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon'] as const

/** Byte length of `g` as WKB with `dim` coordinates per position. */
function sizeOf(g: Geometry, dim: number): number {
  const pt = 8 * dim
  switch (g.type) {
    case 'Point': return 5 + pt
    case 'LineString': return 9 + g.coordinates.length * pt
    case 'Polygon': return 9 + g.coordinates.reduce((s, r) => s + 4 + r.length * pt, 0)
    case 'MultiPoint': return 9 + g.coordinates.length * (5 + pt)
    case 'MultiLineString': return 9 + g.coordinates.reduce((s, l) => s + 9 + l.length * pt, 0)
    case 'MultiPolygon':
      return 9 + g.coordinates.reduce((s, pg) => s + 9 + pg.reduce((t, r) => t + 4 + r.length * pt, 0), 0)
  }
}

export function wkbSize(g: Geometry): number {
  return sizeOf(g, hasZ(g) ? 3 : 2)
}

/** Writes `g` at `offset` of `view`; returns the offset after it. */
export function writeWkb(view: DataView, offset: number, g: Geometry): number {
  // Plain functions passing the offset along: no closures per geometry on the bulk path.
  const dim = hasZ(g) ? 3 : 2
  let o = writeHeader(view, offset, CODES[g.type], dim)
  switch (g.type) {
    case 'Point': return writePoint(view, o, g.coordinates, dim)
    case 'LineString': return writePoints(view, o, g.coordinates, dim)
    case 'Polygon': return writeRings(view, o, g.coordinates, dim)
    case 'MultiPoint':
      view.setUint32(o, g.coordinates.length, true)
      o += 4
      for (const p of g.coordinates) o = writePoint(view, writeHeader(view, o, 1, dim), p, dim)
      return o
    case 'MultiLineString':
      view.setUint32(o, g.coordinates.length, true)
      o += 4
      for (const l of g.coordinates) o = writePoints(view, writeHeader(view, o, 2, dim), l, dim)
      return o
    case 'MultiPolygon':
      view.setUint32(o, g.coordinates.length, true)
      o += 4
      for (const pg of g.coordinates) o = writeRings(view, writeHeader(view, o, 3, dim), pg, dim)
      return o
  }
}

function writeHeader(view: DataView, o: number, type: number, dim: number): number {
  view.setUint8(o, 1)
  view.setUint32(o + 1, type + (dim === 3 ? 1000 : 0), true)
  return o + 5
}

function writePoint(view: DataView, o: number, p: Position, dim: number): number {
  view.setFloat64(o, p[0]!, true)
  view.setFloat64(o + 8, p[1]!, true)
  if (dim === 3) view.setFloat64(o + 16, p[2] ?? 0, true)
  return o + 8 * dim
}

function writePoints(view: DataView, o: number, ps: Position[], dim: number): number {
  view.setUint32(o, ps.length, true)
  o += 4
  for (const p of ps) o = writePoint(view, o, p, dim)
  return o
}

function writeRings(view: DataView, o: number, rs: Position[][], dim: number): number {
  view.setUint32(o, rs.length, true)
  o += 4
  for (const r of rs) o = writePoints(view, o, r, dim)
  return o
}

export function toWkb(g: Geometry): Uint8Array {
  const out = new Uint8Array(wkbSize(g))
  writeWkb(new DataView(out.buffer), 0, g)
  return out
}

/** Reads one WKB geometry at `offset`; throws an `Error` on anything malformed. */
export function readWkb(bytes: Uint8Array, offset = 0): Geometry {
  return new WkbReader(bytes, offset).geometry()
}

/** A cursor over WKB bytes (methods, not closures: listings decode thousands of rows). */
class WkbReader {
  #view: DataView
  #o: number
  #le = true
  #dim = 2

  constructor(bytes: Uint8Array, offset: number) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.#o = offset
  }

  #need(n: number): void {
    if (this.#o + n > this.#view.byteLength) throw new Error('WKB is truncated.')
  }

  #u32(): number {
    this.#need(4)
    const v = this.#view.getUint32(this.#o, this.#le)
    this.#o += 4
    return v
  }

  #point(): Position {
    const dim = this.#dim
    this.#need(8 * dim)
    const o = this.#o
    const p = dim === 3
      ? [this.#view.getFloat64(o, this.#le), this.#view.getFloat64(o + 8, this.#le), this.#view.getFloat64(o + 16, this.#le)]
      : [this.#view.getFloat64(o, this.#le), this.#view.getFloat64(o + 8, this.#le)]
    this.#o += 8 * dim
    return p
  }

  #points(): Position[] {
    const n = this.#u32()
    const out: Position[] = []
    for (let i = 0; i < n; i++) out.push(this.#point())
    return out
  }

  #rings(): Position[][] {
    const n = this.#u32()
    const out: Position[][] = []
    for (let i = 0; i < n; i++) out.push(this.#points())
    return out
  }

  #parts<T>(read: () => T): T[] {
    const n = this.#u32()
    const out: T[] = []
    for (let i = 0; i < n; i++) out.push(read())
    return out
  }

  geometry(): Geometry {
    this.#need(5)
    const le = this.#view.getUint8(this.#o) === 1
    let code = this.#view.getUint32(this.#o + 1, le)
    this.#o += 5
    let dim = 2
    if (code & 0x80000000) { dim += 1; code &= 0x0fffffff } // EWKB Z flag
    if (code & 0x40000000) throw new Error('WKB with M coordinates is not supported.')
    if (code >= 3000) throw new Error('WKB with M coordinates is not supported.')
    if (code >= 2000) throw new Error('WKB with M coordinates is not supported.')
    if (code >= 1000) { dim = 3; code -= 1000 }
    const type = TYPES[code]
    if (!type) throw new Error(`WKB geometry type ${code} is not supported.`)
    this.#le = le
    this.#dim = dim
    switch (type) {
      case 'Point': return { type, coordinates: this.#point() }
      case 'LineString': return { type, coordinates: this.#points() }
      case 'Polygon': return { type, coordinates: this.#rings() }
      case 'MultiPoint': return { type, coordinates: this.#parts(() => (this.geometry() as { coordinates: Position }).coordinates) }
      case 'MultiLineString': return { type, coordinates: this.#parts(() => (this.geometry() as { coordinates: Position[] }).coordinates) }
      case 'MultiPolygon': return { type, coordinates: this.#parts(() => (this.geometry() as { coordinates: Position[][] }).coordinates) }
    }
  }
}
