/**
 * @module ingest/geom-fix
 * The slow path for a feature whose geometry does not fit the layer as it is: read it (M
 * values and collections included), bring it to the layer's type the way the original's loader
 * does (`vector_layer/ogrloader.py`: promote to multi, take the one member of a multi or a
 * collection, set or drop Z, and with `fix_errors` close rings or drop broken parts), or say
 * why it cannot be.
 */
import type { Geometry, Position } from '../geo/geometry.ts'

export type FixErrors = 'NONE' | 'SAFE' | 'LOSSY'

/** The layer's geometry type split into family (1 point, 2 line, 3 polygon), multi and Z. */
export interface TargetType { family: 1 | 2 | 3; multi: boolean; z: boolean }

/** A geometry that cannot be stored; `typeError` marks the kind `skip_other_geometry_types` skips. */
export class FixError extends Error {
  constructor(message: string, readonly typeError = false) { super(message) }
}

/** One point, line or polygon; members of multis and collections are these. */
interface Simple { kind: 1 | 2 | 3; coords: Position | Position[] | Position[][] }
interface Parsed { kind: number; members: Simple[]; m: boolean; nested: Parsed[] }

const NAMES = ['Unknown', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection']

class Reader {
  o: number
  le = true
  constructor(readonly v: DataView, o: number) { this.o = o }
  u32(): number { const x = this.v.getUint32(this.o, this.le); this.o += 4; return x }
  pos(dim: number, z: boolean): Position {
    const p = [this.v.getFloat64(this.o, this.le), this.v.getFloat64(this.o + 8, this.le)]
    if (z) p.push(this.v.getFloat64(this.o + 16, this.le))
    this.o += dim * 8
    return p
  }

  geometry(): Parsed {
    this.le = this.v.getUint8(this.o) === 1
    let code = this.v.getUint32(this.o + 1, this.le)
    this.o += 5
    let z = (code & 0x80000000) !== 0
    let m = (code & 0x40000000) !== 0
    code &= 0x0fffffff
    const th = Math.floor(code / 1000)
    z ||= th === 1 || th === 3
    m ||= th === 2 || th === 3
    const kind = code % 1000
    const dim = 2 + (z ? 1 : 0) + (m ? 1 : 0)
    const pts = () => { const n = this.u32(); const out: Position[] = []; for (let i = 0; i < n; i++) out.push(this.pos(dim, z)); return out }
    switch (kind) {
      case 1: {
        const p = this.pos(dim, z)
        return { kind, m, nested: [], members: Number.isNaN(p[0]) && Number.isNaN(p[1]) ? [] : [{ kind: 1, coords: p }] }
      }
      case 2: return { kind, m, nested: [], members: [{ kind: 2, coords: pts() }] }
      case 3: {
        const n = this.u32()
        const rings: Position[][] = []
        for (let i = 0; i < n; i++) rings.push(pts())
        return { kind, m, nested: [], members: [{ kind: 3, coords: rings }] }
      }
      case 4: case 5: case 6: case 7: {
        const n = this.u32()
        const nested: Parsed[] = []
        for (let i = 0; i < n; i++) nested.push(this.geometry())
        return { kind, m: m || nested.some((g) => g.m), nested, members: nested.flatMap((g) => g.members) }
      }
      default: throw new FixError(`has unknown geometry type: ${kind}`, true)
    }
  }
}

const familyOf = (kind: number) => (kind === 7 ? 0 : ((kind - 1) % 3) + 1)
const isMulti = (kind: number) => kind >= 4

/**
 * The geometry of a GeoPackage blob brought to `target`, or a `FixError`. The blob is known to
 * be readable (the fast scan read it) but not to fit.
 */
export function fixGeometry(blob: Uint8Array, target: TargetType, fix: FixErrors): Geometry {
  const envelope = (blob[3]! >> 1) & 7
  let g = new Reader(new DataView(blob.buffer, blob.byteOffset, blob.byteLength), 8 + [0, 32, 48, 48, 64][envelope]!).geometry()
  if (g.m && fix !== 'LOSSY') throw new FixError(`has measured (M) coordinates (${NAMES[g.kind] ?? g.kind} M); load it with fix_errors LOSSY to drop them`, true)
  if (g.kind === 7) {
    const fits = fix === 'NONE' ? [] : g.nested.filter((n) => n.kind !== 7 && familyOf(n.kind) === target.family)
    if (fits.length > 1 && fix === 'SAFE') throw new FixError('has multiple geometries satisfying the conditions')
    if (!fits.length) throw new FixError('has unknown geometry type: 7 (GeometryCollection)', true)
    g = fits[0]!
  }
  if (familyOf(g.kind) !== target.family) throw new FixError(`has unsuitable geometry type: ${g.kind} (${NAMES[g.kind]})`, true)
  let parts = g.members
  if (!target.multi && isMulti(g.kind) && parts.length > 1) {
    if (fix !== 'LOSSY') throw new FixError('has multiple geometries satisfying the conditions')
    parts = parts.slice(0, 1)
  }
  parts = parts.map((p) => setZ(p, target.z))
  if (target.family !== 1) parts = repair(parts, target, fix)
  if (!parts.length) throw new FixError('has no geometry')
  for (const p of parts) if (!finite(p)) throw new FixError('has coordinates that are not finite numbers')
  return build(parts, target)
}

function setZ(p: Simple, z: boolean): Simple {
  const f = (q: Position): Position => (z ? [q[0]!, q[1]!, q[2] ?? 0] : [q[0]!, q[1]!])
  if (p.kind === 1) return { kind: 1, coords: f(p.coords as Position) }
  if (p.kind === 2) return { kind: 2, coords: (p.coords as Position[]).map(f) }
  return { kind: 3, coords: (p.coords as Position[][]).map((r) => r.map(f)) }
}

/** Rings and lines checked and, as `fix` allows, mended, as the original's loader does. */
function repair(parts: Simple[], target: TargetType, fix: FixErrors): Simple[] {
  const out: Simple[] = []
  for (const p of parts) {
    if (p.kind === 2) {
      const line = p.coords as Position[]
      if (line.length === 0) {
        if (!target.multi) continue // LINESTRING EMPTY: no geometry at all
        if (fix === 'NONE') throw new FixError('contains an empty linestring')
        continue
      }
      if (line.length < 2) {
        if (fix !== 'LOSSY') throw new FixError('has less than 2 points in a linestring')
        continue
      }
      out.push(p)
      continue
    }
    const rings: Position[][] = []
    let dropPart = false
    ;(p.coords as Position[][]).forEach((ring, i) => {
      if (dropPart) return
      if (ring.length === 0) {
        if (fix === 'NONE' || (i === 0 && !target.multi)) throw new FixError('has empty rings')
        if (i === 0) dropPart = true
        return
      }
      let r = ring
      const head = r[0]!
      const tail = r[r.length - 1]!
      if (head.some((v, k) => v !== tail[k])) {
        if (fix === 'NONE') throw new FixError('has unclosed rings')
        if (r.length > 2) r = [...r, head]
      }
      if (r.length < 4) {
        if (fix !== 'LOSSY') throw new FixError('has less than 3 points in a polygon ring')
        if (i === 0) dropPart = true
        return
      }
      rings.push(r)
    })
    if (!dropPart && rings.length) out.push({ kind: 3, coords: rings })
  }
  return out
}

function finite(p: Simple): boolean {
  const ok = (q: Position) => q.every(Number.isFinite)
  if (p.kind === 1) return ok(p.coords as Position)
  if (p.kind === 2) return (p.coords as Position[]).every(ok)
  return (p.coords as Position[][]).every((r) => r.every(ok))
}

function build(parts: Simple[], target: TargetType): Geometry {
  const c = parts.map((p) => p.coords)
  switch (target.family) {
    case 1: return target.multi ? { type: 'MultiPoint', coordinates: c as Position[] } : { type: 'Point', coordinates: c[0] as Position }
    case 2: return target.multi ? { type: 'MultiLineString', coordinates: c as Position[][] } : { type: 'LineString', coordinates: c[0] as Position[] }
    case 3: return target.multi ? { type: 'MultiPolygon', coordinates: c as Position[][][] } : { type: 'Polygon', coordinates: c[0] as Position[][] }
  }
}
