/**
 * Natural Earth as world-atlas ships it is made for spherical projections (d3-geo): a ring
 * that crosses the antimeridian (Chukotka, Wrangel Island, Fiji, Antarctica) jumps from
 * +180° to −180° in one edge. Projected flat, that edge spans the whole world: the basemap's
 * land fill and outline drew grey horizontal bands and lines across the ocean at small
 * scales. These helpers make such geometry flat-safe before the tiles are cut.
 */
import type { Geometry, Position } from 'geojson'

/** Longitudes made continuous: each point within 180° of the one before (may leave −180…180). */
function unwrap(ring: Position[]): Position[] {
  const out: Position[] = []
  let shift = 0
  ring.forEach((p, i) => {
    if (i > 0) {
      const d = p[0]! + shift - out[i - 1]![0]!
      if (d > 180) shift -= 360
      else if (d < -180) shift += 360
    }
    out.push([p[0]! + shift, p[1]!])
  })
  return out
}

/**
 * A polygon's rings, unwrapped; an outer ring around a pole (Antarctica: it ends 360° from
 * where it starts) is closed along the pole. Returns the polygon and copies shifted by ±360°
 * for the parts past ±180°, so each side of the antimeridian is drawn.
 */
function flatPolygon(rings: Position[][]): Position[][][] {
  const flat = rings.map(unwrap)
  const outer = flat[0]!
  const first = outer[0]!
  const last = outer[outer.length - 1]!
  if (Math.abs(last[0]! - first[0]!) > 180) {
    const pole = outer.reduce((s, p) => s + p[1]!, 0) < 0 ? -90 : 90
    outer.push([last[0]!, pole], [first[0]!, pole], [first[0]!, first[1]!])
  }
  const lons = outer.map((p) => p[0]!)
  const min = Math.min(...lons)
  const max = Math.max(...lons)
  const shifts = [0, ...(max > 180 ? [-360] : []), ...(min < -180 ? [360] : [])]
  return shifts.map((k) => (k === 0 ? flat : flat.map((r) => r.map((p) => [p[0]! + k, p[1]!]))))
}

/** A line cut where it jumps across the antimeridian. */
function splitLine(line: Position[]): Position[][] {
  const parts: Position[][] = [[]]
  line.forEach((p, i) => {
    if (i > 0 && Math.abs(p[0]! - line[i - 1]![0]!) > 180) parts.push([])
    parts[parts.length - 1]!.push(p)
  })
  return parts.filter((l) => l.length > 1)
}

/** `g` with no edge across the antimeridian (polygons and lines; other types as they are). */
export function flatAtAntimeridian(g: Geometry): Geometry {
  switch (g.type) {
    case 'Polygon': return { type: 'MultiPolygon', coordinates: flatPolygon(g.coordinates) }
    case 'MultiPolygon': return { type: 'MultiPolygon', coordinates: g.coordinates.flatMap(flatPolygon) }
    case 'LineString': return { type: 'MultiLineString', coordinates: splitLine(g.coordinates) }
    case 'MultiLineString': return { type: 'MultiLineString', coordinates: g.coordinates.flatMap(splitLine) }
    default: return g
  }
}
