import { describe, expect, it } from 'vitest'
import { parseWkt, toWkt } from '../../sw/geo/wkt.ts'
import { readWkb, toWkb } from '../../sw/geo/wkb.ts'
import { decodeGpkg, encodeGpkg, gpkgBbox } from '../../sw/geo/gpkg.ts'
import { layerTypeOf, type Geometry } from '../../sw/geo/geometry.ts'
import { areaOf, lengthOf } from '../../sw/geo/measure.ts'
import { flatten, intersects as flatIntersects } from '../../sw/geo/flat.ts'
import { reproject, UnknownSrsError } from '../../sw/geo/reproject.ts'
import { loadProjection, projectionOf } from '../../sw/geo/srs.ts'
import { nodeEpsg } from '../../sw/host/node-epsg.ts'

const SAMPLES: [string, string][] = [
  ['POINT (1 2)', 'POINT(1 2)'],
  ['POINT Z (1 2 3)', 'POINT Z (1 2 3)'],
  ['LINESTRING(0 0, 1.5 -2)', 'LINESTRING(0 0,1.5 -2)'],
  ['POLYGON ((0 0, 4 0, 4 4, 0 0), (1 1, 2 1, 2 2, 1 1))', 'POLYGON((0 0,4 0,4 4,0 0),(1 1,2 1,2 2,1 1))'],
  ['MULTIPOINT (1 2, 3 4)', 'MULTIPOINT(1 2,3 4)'],
  ['MULTIPOINT ((1 2), (3 4))', 'MULTIPOINT(1 2,3 4)'],
  ['MULTILINESTRING Z ((0 0 1, 1 1 2))', 'MULTILINESTRING Z ((0 0 1,1 1 2))'],
  ['MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))', 'MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5)))'],
]

describe('geo/wkt', () => {
  it('writes WKT as PostGIS ST_AsText does', () => {
    for (const [input, output] of SAMPLES) expect(toWkt(parseWkt(input))).toBe(output)
  })
  it('names the layer geometry type', () => {
    expect(layerTypeOf(parseWkt('POINT Z (1 2 3)'))).toBe('POINTZ')
    expect(layerTypeOf(parseWkt('MULTIPOLYGON(((0 0,1 0,1 1,0 0)))'))).toBe('MULTIPOLYGON')
  })
  it('rejects malformed, empty, unclosed and collection input with a reason', () => {
    expect(() => parseWkt('POINT(1')).toThrow(/Invalid WKT/)
    expect(() => parseWkt('POINT EMPTY')).toThrow(/Empty/)
    expect(() => parseWkt('POLYGON((0 0, 1 0, 1 1, 0 1))')).toThrow(/not closed/)
    expect(() => parseWkt('LINESTRING(0 0)')).toThrow(/two points/)
    expect(() => parseWkt('GEOMETRYCOLLECTION(POINT(1 2))')).toThrow(/not supported/)
  })
})

describe('geo/wkb and geo/gpkg', () => {
  it('round-trips every sample through WKB and GeoPackage blobs', () => {
    for (const [input] of SAMPLES) {
      const g = parseWkt(input)
      expect(readWkb(toWkb(g))).toEqual(g)
      expect(decodeGpkg(encodeGpkg(g, 3857))).toEqual(g)
    }
  })
  it('writes ISO WKB: little-endian, Z types as 1000 + type', () => {
    const wkb = toWkb(parseWkt('POINT Z (1 2 3)'))
    expect(wkb.length).toBe(5 + 24)
    expect(wkb[0]).toBe(1)
    expect(new DataView(wkb.buffer).getUint32(1, true)).toBe(1001)
  })
  it('reads big-endian and EWKB Z input', () => {
    const be = new Uint8Array(21)
    const v = new DataView(be.buffer)
    v.setUint8(0, 0); v.setUint32(1, 1, false); v.setFloat64(5, 7, false); v.setFloat64(13, 8, false)
    expect(readWkb(be)).toEqual({ type: 'Point', coordinates: [7, 8] })
    const ewkb = new Uint8Array(29)
    const w = new DataView(ewkb.buffer)
    w.setUint8(0, 1); w.setUint32(1, 0x80000001, true); w.setFloat64(5, 1, true); w.setFloat64(13, 2, true); w.setFloat64(21, 3, true)
    expect(readWkb(ewkb)).toEqual({ type: 'Point', coordinates: [1, 2, 3] })
    expect(() => readWkb(ewkb.subarray(0, 20))).toThrow(/truncated/)
  })
  it('writes the GP header: magic, version 0, flags, SRS id, XY envelope except for points', () => {
    const poly = encodeGpkg(parseWkt('POLYGON((1 2, 5 2, 5 9, 1 2))'), 3857)
    expect([...poly.subarray(0, 4)]).toEqual([0x47, 0x50, 0, 0b011])
    const v = new DataView(poly.buffer)
    expect(v.getInt32(4, true)).toBe(3857)
    expect([8, 16, 24, 32].map((o) => v.getFloat64(o, true))).toEqual([1, 5, 2, 9]) // minx maxx miny maxy
    expect(gpkgBbox(poly)).toEqual([1, 2, 5, 9])
    const pt = encodeGpkg(parseWkt('POINT(3 4)'), 4326)
    expect(pt[3]).toBe(1)
    expect(pt.length).toBe(8 + 21)
    expect(gpkgBbox(pt)).toEqual([3, 4, 3, 4])
    expect(() => decodeGpkg(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))).toThrow(/GeoPackage/)
  })
})

/** The kernel's predicate on two geometries. */
const intersects = (a: Geometry, b: Geometry) => flatIntersects(flatten(a), flatten(b))

describe('geo/measure', () => {
  const g = (wkt: string) => parseWkt(wkt) as Geometry
  it('tests intersection between every kind of geometry', () => {
    const square = g('POLYGON((0 0, 10 0, 10 10, 0 10, 0 0),(4 4, 6 4, 6 6, 4 6, 4 4))')
    expect(intersects(g('POINT(1 1)'), square)).toBe(true)
    expect(intersects(g('POINT(5 5)'), square)).toBe(false) // in the hole
    expect(intersects(g('POINT(10 5)'), square)).toBe(true) // on the boundary
    expect(intersects(g('LINESTRING(-5 5, 15 5)'), square)).toBe(true)
    expect(intersects(g('LINESTRING(-5 -5, -1 20)'), square)).toBe(false)
    expect(intersects(g('POLYGON((2 2, 3 2, 3 3, 2 2))'), square)).toBe(true)
    expect(intersects(square, g('POLYGON((-1 -1, 20 -1, 20 20, -1 -1))'))).toBe(true)
    expect(intersects(g('MULTIPOINT(20 20, 1 1)'), square)).toBe(true)
    expect(intersects(g('LINESTRING(0 0, 2 2)'), g('LINESTRING(0 2, 2 0)'))).toBe(true)
  })
  it('measures planar area and length', () => {
    expect(areaOf(g('POLYGON((0 0, 4 0, 4 3, 0 3, 0 0))'))).toBe(12)
    expect(lengthOf(g('POLYGON((0 0, 4 0, 4 3, 0 3, 0 0))'))).toBe(14)
    expect(lengthOf(g('LINESTRING(0 0, 3 4)'))).toBe(5)
    expect(areaOf(g('POINT(1 1)'))).toBeNull()
    expect(lengthOf(g('POINT(1 1)'))).toBeNull()
  })
})

describe('geo/reproject', () => {
  it('projects between known systems, including UTM zones of the EPSG index, and refuses unknown codes', async () => {
    expect(projectionOf(32637)).toBeUndefined() // not loaded yet
    expect((await loadProjection(32637, nodeEpsg))?.displayName).toBe('WGS 84 / UTM zone 37N (EPSG:32637)')
    expect(await loadProjection(999999, nodeEpsg)).toBeUndefined()
    expect(await loadProjection(27700, nodeEpsg)).toBeUndefined() // needs an NTv2 grid that is not shipped
    // Deprecated codes the index omits still answer, as they did before it was used.
    expect((await loadProjection(28467, nodeEpsg))?.proj4).toMatch(/\+lon_0=39 .*\+x_0=500000 /)
    expect((await loadProjection(25838, nodeEpsg))?.proj4).toMatch(/\+zone=38 /)
    const p = reproject(g4326('POINT(37.6173 55.7558)'), 4326, 32637) as { coordinates: number[] }
    expect(p.coordinates[0]).toBeGreaterThan(413_000)
    expect(p.coordinates[0]).toBeLessThan(413_500)
    expect(p.coordinates[1]).toBeCloseTo(6_179_000, -4)
    expect(() => reproject(g4326('POINT(1 2)'), 4326, 999999)).toThrow(UnknownSrsError)
  })
})

function g4326(wkt: string): Geometry { return parseWkt(wkt) }
