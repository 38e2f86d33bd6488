/**
 * @module catalogue/geometry
 * What the `intersects_*` filters need: reading WKT, EWKT (`SRID=n;WKT`) or a GeoJSON
 * geometry, reprojecting it to EPSG:4326, and a planar intersection test in degrees, as
 * PostGIS `ST_Intersects` on `geometry` does (reference §7.6: no antimeridian handling).
 */
/// <reference path="./terraformer-wkt.d.ts" />
import { wktToGeoJSON } from '@terraformer/wkt'
import proj4 from 'proj4'
import { findSrs } from '../geo/srs.ts'

/** A geometry flattened for testing: polygons as rings, lines and points as flat [x, y, …] arrays. */
export interface Shape {
  /** Each polygon is a list of rings; each ring a closed flat coordinate array. */
  polygons: number[][][]
  lines: number[][]
  points: number[]
  /** [minx, miny, maxx, maxy]; empty shapes have an inverted box. */
  bbox: [number, number, number, number]
}

export class GeometryError extends Error {}

type Position = number[]
interface GeoJson { type: string; coordinates?: unknown; geometries?: GeoJson[] }

/**
 * Parses the text of a filter or a stored field. Keywords are case-insensitive (GEOS accepts
 * `polygon(...)`); a missing SRID means 4326; another SRID is reprojected to 4326.
 */
export function parseGeometry(text: string): Shape {
  let body = text.trim()
  let srid = 4326
  const m = /^SRID=(-?\d+)\s*;\s*([\s\S]*)$/i.exec(body)
  if (m) { srid = Number(m[1]); body = m[2]! }
  let geo: GeoJson
  if (body.startsWith('{')) {
    try { geo = JSON.parse(body) as GeoJson } catch { throw new GeometryError('Invalid GeoJSON.') }
    if (typeof geo !== 'object' || geo === null || typeof geo.type !== 'string') throw new GeometryError('Invalid GeoJSON.')
  } else {
    if (!/^[A-Za-z]/.test(body)) throw new GeometryError(`Couldn't create spatial object from lookup value '${text}'.`)
    try {
      // The parser knows upper-case keywords only; numbers survive upper-casing (1e5 → 1E5).
      geo = wktToGeoJSON(body.toUpperCase()) as GeoJson
    } catch {
      throw new GeometryError(`Couldn't create spatial object from lookup value '${text}'.`)
    }
  }
  let project: ((p: Position) => Position) | undefined
  if (srid !== 4326) {
    const def = findSrs(srid)
    if (!def) throw new GeometryError(`Unknown SRID ${srid}.`)
    const conv = proj4(def.proj4, 'EPSG:4326')
    project = (p) => conv.forward([p[0]!, p[1]!])
  }
  const shape: Shape = { polygons: [], lines: [], points: [], bbox: [Infinity, Infinity, -Infinity, -Infinity] }
  addGeoJson(shape, geo, project)
  return shape
}

function flat(coords: unknown, project: ((p: Position) => Position) | undefined, shape: Shape): number[] {
  if (!Array.isArray(coords)) throw new GeometryError('Invalid coordinates.')
  const out: number[] = []
  for (const p of coords as unknown[]) {
    if (!Array.isArray(p) || p.length < 2 || !p.slice(0, 2).every((v) => typeof v === 'number' && Number.isFinite(v))) {
      throw new GeometryError('Invalid coordinates.')
    }
    const q = project ? project(p as Position) : (p as Position)
    const x = q[0]!, y = q[1]!
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new GeometryError('Coordinates out of the projection\'s range.')
    out.push(x, y)
    const b = shape.bbox
    if (x < b[0]) b[0] = x
    if (y < b[1]) b[1] = y
    if (x > b[2]) b[2] = x
    if (y > b[3]) b[3] = y
  }
  return out
}

function addGeoJson(shape: Shape, g: GeoJson, project: ((p: Position) => Position) | undefined): void {
  const c = g.coordinates as unknown[]
  switch (g.type) {
    case 'Point':
      if (Array.isArray(c) && c.length) shape.points.push(...flat([c], project, shape))
      return
    case 'MultiPoint': shape.points.push(...flat(c, project, shape)); return
    case 'LineString': if (c?.length) shape.lines.push(flat(c, project, shape)); return
    case 'MultiLineString': for (const l of c ?? []) if ((l as unknown[])?.length) shape.lines.push(flat(l, project, shape)); return
    case 'Polygon': if (c?.length) shape.polygons.push((c as unknown[]).map((r) => flat(r, project, shape))); return
    case 'MultiPolygon':
      for (const p of c ?? []) if ((p as unknown[])?.length) shape.polygons.push((p as unknown[]).map((r) => flat(r, project, shape)))
      return
    case 'GeometryCollection':
      for (const sub of g.geometries ?? []) addGeoJson(shape, sub, project)
      return
    default:
      throw new GeometryError(`Unsupported geometry type '${g.type}'.`)
  }
}

export function isEmpty(s: Shape): boolean {
  return s.bbox[0] > s.bbox[2]
}

const boxesOverlap = (a: Shape['bbox'], b: Shape['bbox']) => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
  return v > 0 ? 1 : v < 0 ? -1 : 0
}

const within = (a: number, b: number, c: number) => Math.min(a, b) <= c && c <= Math.max(a, b)

/** Closed segments p1p2 and p3p4 share at least one point. */
function segmentsMeet(x1: number, y1: number, x2: number, y2: number, x3: number, y3: number, x4: number, y4: number): boolean {
  const d1 = orient(x3, y3, x4, y4, x1, y1), d2 = orient(x3, y3, x4, y4, x2, y2)
  const d3 = orient(x1, y1, x2, y2, x3, y3), d4 = orient(x1, y1, x2, y2, x4, y4)
  if (d1 !== d2 && d3 !== d4) return true
  if (d1 === 0 && within(x3, x4, x1) && within(y3, y4, y1)) return true
  if (d2 === 0 && within(x3, x4, x2) && within(y3, y4, y2)) return true
  if (d3 === 0 && within(x1, x2, x3) && within(y1, y2, y3)) return true
  if (d4 === 0 && within(x1, x2, x4) && within(y1, y2, y4)) return true
  return false
}

/** Every segment of `s` (ring edges and line pieces), and each point as a zero-length one. */
function segments(s: Shape): number[][] {
  const out: number[][] = []
  for (const poly of s.polygons) for (const ring of poly) out.push(ring)
  for (const line of s.lines) out.push(line)
  for (let i = 0; i < s.points.length; i += 2) out.push([s.points[i]!, s.points[i + 1]!, s.points[i]!, s.points[i + 1]!])
  return out
}

function ringContains(ring: number[], x: number, y: number): boolean {
  let inside = false
  for (let i = 0, j = ring.length - 2; i < ring.length; j = i, i += 2) {
    const xi = ring[i]!, yi = ring[i + 1]!, xj = ring[j]!, yj = ring[j + 1]!
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside
  }
  return inside
}

/** Strictly inside some polygon of `s` (outer ring, outside its holes). */
function polygonsContain(s: Shape, x: number, y: number): boolean {
  for (const [outer, ...holes] of s.polygons) {
    if (outer && ringContains(outer, x, y) && !holes.some((h) => ringContains(h, x, y))) return true
  }
  return false
}

/** One vertex of each part of `s`: if no edges cross, a part is inside iff its vertex is. */
function representativePoints(s: Shape): number[] {
  const out: number[] = []
  for (const poly of s.polygons) if (poly[0]?.length) out.push(poly[0][0]!, poly[0][1]!)
  for (const line of s.lines) if (line.length) out.push(line[0]!, line[1]!)
  out.push(...s.points)
  return out
}

/** Planar ST_Intersects: the shapes share at least one point (boundaries included). */
export function intersects(a: Shape, b: Shape): boolean {
  if (isEmpty(a) || isEmpty(b) || !boxesOverlap(a.bbox, b.bbox)) return false
  const sa = segments(a), sb = segments(b)
  for (const pa of sa) {
    for (let i = 0; i + 3 < pa.length; i += 2) {
      const ax1 = pa[i]!, ay1 = pa[i + 1]!, ax2 = pa[i + 2]!, ay2 = pa[i + 3]!
      for (const pb of sb) {
        for (let j = 0; j + 3 < pb.length; j += 2) {
          if (segmentsMeet(ax1, ay1, ax2, ay2, pb[j]!, pb[j + 1]!, pb[j + 2]!, pb[j + 3]!)) return true
        }
      }
    }
  }
  const ra = representativePoints(a), rb = representativePoints(b)
  for (let i = 0; i < ra.length; i += 2) if (polygonsContain(b, ra[i]!, ra[i + 1]!)) return true
  for (let i = 0; i < rb.length; i += 2) if (polygonsContain(a, rb[i]!, rb[i + 1]!)) return true
  return false
}

/** The envelope of `s` as the original prints an `extent`. */
export function envelopeEwkt(s: Shape): string | null {
  if (isEmpty(s)) return null
  const [x0, y0, x1, y1] = s.bbox
  return `SRID=4326;POLYGON ((${x0} ${y0}, ${x1} ${y0}, ${x1} ${y1}, ${x0} ${y1}, ${x0} ${y0}))`
}
