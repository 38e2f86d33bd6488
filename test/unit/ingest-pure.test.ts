import { describe, expect, it } from 'vitest'
import { cp1251ToUtf8, invalidUtf8At, supportedEncoding, textProblem } from '../../sw/ingest/encoding.ts'
import { Flaw, Kind, Scan, scanGpkg } from '../../sw/ingest/wkb-scan.ts'
import { FixError, fixGeometry } from '../../sw/ingest/geom-fix.ts'
import { decideGeometryType, loaderOptions, targetOf, type Seen } from '../../sw/ingest/vector-plan.ts'
import { parseRange } from '../../sw/files/http.ts'
import { encodeGpkg } from '../../sw/geo/gpkg.ts'
import type { Geometry } from '../../sw/geo/geometry.ts'

/** A GeoPackage blob of a geometry, or of raw WKB (for what our encoder cannot write). */
const gpkg = (g: Geometry) => encodeGpkg(g, 3857)
function gpkgOfWkb(wkb: number[]): Uint8Array {
  return new Uint8Array([0x47, 0x50, 0, 1, 0x11, 0x0f, 0, 0, ...wkb])
}
const f64 = (...xs: number[]) => [...new Uint8Array(new Float64Array(xs).buffer)]
const u32 = (x: number) => [x & 0xff, (x >> 8) & 0xff, (x >> 16) & 0xff, (x >>> 24) & 0xff]

describe('ingest/encoding', () => {
  it.each([['UTF-8', 'UTF-8'], ['utf8', 'UTF-8'], ['CP1251', 'CP1251'], ['windows-1251', 'CP1251'], ['ANSI 1251', 'CP1251'],
    ['ISO-8859-1', undefined], ['KOI8-R', undefined]])('names %s as %s', (name, want) => {
    expect(supportedEncoding(name)).toBe(want)
  })

  it('finds the first byte that breaks UTF-8', () => {
    expect(invalidUtf8At(new TextEncoder().encode('plain ascii, Кириллица, 🌍'))).toBe(-1)
    expect(invalidUtf8At(new Uint8Array([0x61, 0xcf, 0xf0]))).toBe(1) // CP1251 "Пр"
    expect(invalidUtf8At(new Uint8Array([0xc0, 0x80]))).toBe(0) // overlong
    expect(invalidUtf8At(new Uint8Array([0xed, 0xa0, 0x80]))).toBe(0) // surrogate
    expect(invalidUtf8At(new Uint8Array([0x61, 0xe2, 0x82]))).toBe(1) // truncated
  })

  it('converts CP1251 to UTF-8', () => {
    expect(new TextDecoder().decode(cp1251ToUtf8(new Uint8Array([0xcf, 0xf0, 0xf3, 0xe4])))).toBe('Пруд')
  })

  it.each([
    ['fine text', false, undefined],
    ['tab\there', false, undefined],
    ['tab\there', true, /non-printable character \(U\+0009\)/],
    ['bell\u0007', false, /U\+0007\) at position 5/],
    ['c1\u0085', false, /U\+0085/],
    ['broken \uFFFD', false, /not valid in its encoding/],
  ])('textProblem(%j, name=%s)', (s, isName, want) => {
    const got = textProblem(s, isName)
    if (want === undefined) expect(got).toBeUndefined()
    else expect(got).toMatch(want)
  })
})

describe('ingest/wkb-scan', () => {
  const scan = new Scan()
  it('reads type, parts and bounds without building the geometry', () => {
    const s = scanGpkg(gpkg({ type: 'MultiPolygon', coordinates: [[[[0, 0], [2, 0], [2, 3], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]] }), scan)
    expect([s.kind, s.parts, s.z, s.m, s.flaw, s.empty]).toEqual([Kind.MultiPolygon, 2, false, false, Flaw.None, false])
    expect([...s.bbox]).toEqual([0, 0, 6, 6])
    expect(scanGpkg(gpkg({ type: 'Point', coordinates: [1, 2, 3] }), scan)).toMatchObject({ kind: Kind.Point, z: true })
    expect(scanGpkg(null, scan)).toMatchObject({ empty: true, flaw: Flaw.None })
  })

  it.each([
    ['an unclosed ring', { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }, Flaw.UnclosedRing],
    ['a short ring', { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [0, 0]]] }, Flaw.ShortRing],
    ['a one-point line', { type: 'LineString', coordinates: [[0, 0]] }, Flaw.ShortLine],
    ['an empty part', { type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], []] }, Flaw.EmptyLine],
    ['a non-finite coordinate', { type: 'LineString', coordinates: [[0, 0], [Infinity, 1]] }, Flaw.NonFinite],
  ] as Array<[string, Geometry, number]>)('flags %s', (_, g, flaw) => {
    expect(scanGpkg(gpkg(g), scan).flaw).toBe(flaw)
  })

  it('flags M values, curves and truncated bytes', () => {
    expect(scanGpkg(gpkgOfWkb([1, ...u32(2001), ...f64(1, 2, 3)]), scan)).toMatchObject({ kind: Kind.Point, m: true })
    expect(scanGpkg(gpkgOfWkb([1, ...u32(8), ...u32(0)]), scan).flaw).toBe(Flaw.Unsupported)
    expect(scanGpkg(gpkgOfWkb([1, ...u32(2), ...u32(5), ...f64(1)]), scan).flaw).toBe(Flaw.Malformed)
  })
})

describe('ingest/geom-fix', () => {
  const T = targetOf
  it('promotes a single geometry to the layer\'s multi type and sets Z', () => {
    expect(fixGeometry(gpkg({ type: 'Point', coordinates: [1, 2] }), T('MULTIPOINTZ'), 'NONE'))
      .toEqual({ type: 'MultiPoint', coordinates: [[1, 2, 0]] })
    expect(fixGeometry(gpkg({ type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]]] }), T('LINESTRING'), 'NONE'))
      .toEqual({ type: 'LineString', coordinates: [[0, 0], [1, 1]] })
  })

  it.each([
    ['several parts into a single type', { type: 'MultiPoint', coordinates: [[0, 0], [1, 1]] }, 'POINT', 'NONE', /multiple geometries/],
    ['another family', { type: 'Point', coordinates: [0, 0] }, 'POLYGON', 'LOSSY', /unsuitable geometry type/],
    ['an unclosed ring without fixing', { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }, 'POLYGON', 'NONE', /unclosed rings/],
  ] as Array<[string, Geometry, string, 'NONE' | 'SAFE' | 'LOSSY', RegExp]>)('refuses %s', (_, g, type, fix, msg) => {
    expect(() => fixGeometry(gpkg(g), T(type), fix)).toThrow(msg)
  })

  it('closes rings with SAFE, drops short parts and M with LOSSY, takes a collection\'s one fitting member', () => {
    expect(fixGeometry(gpkg({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }), T('POLYGON'), 'SAFE'))
      .toEqual({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] })
    expect(fixGeometry(gpkg({ type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[5, 5]]] }), T('MULTILINESTRING'), 'LOSSY'))
      .toEqual({ type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]]] })
    expect(fixGeometry(gpkgOfWkb([1, ...u32(2001), ...f64(1, 2, 3)]), T('POINT'), 'LOSSY')).toEqual({ type: 'Point', coordinates: [1, 2] })
    expect(() => fixGeometry(gpkgOfWkb([1, ...u32(2001), ...f64(1, 2, 3)]), T('POINT'), 'SAFE')).toThrow(FixError)
    const collection = gpkgOfWkb([1, ...u32(7), ...u32(1), 1, ...u32(1), ...f64(4, 5)])
    expect(fixGeometry(collection, T('POINT'), 'SAFE')).toEqual({ type: 'Point', coordinates: [4, 5] })
    expect(() => fixGeometry(collection, T('POINT'), 'NONE')).toThrow(/GeometryCollection/)
  })
})

describe('ingest/vector-plan', () => {
  const explore = (seen: Seen[]) => { let i = 0; return () => seen[i++] }
  const opts = (m: Record<string, unknown> = {}) => loaderOptions(m)
  it.each([
    ['the declared type', 'POINT', [], {}, 'POINT'],
    ['multi when any feature is multi', null, [{ kind: 1, z: false, parts: 1 }, { kind: 4, z: false, parts: 2 }], {}, 'MULTIPOINT'],
    ['Z when any feature has Z', null, [{ kind: 2, z: true, parts: 1 }], {}, 'LINESTRINGZ'],
    ['the casts', null, [], { cast_geometry_type: 'POLYGON', cast_is_multi: true, cast_has_z: false }, 'MULTIPOLYGON'],
  ] as Array<[string, string | null, Seen[], Record<string, unknown>, string]>)('takes %s', (_, declared, seen, m, want) => {
    expect(decideGeometryType(declared, opts(m), explore(seen), 'f.geojson')).toBe(want)
  })

  it('refuses a file whose type cannot be decided, and bad option values', () => {
    expect(() => decideGeometryType(null, opts(), explore([]), 'empty.geojson')).toThrow(/could not determine a geometry type/)
    expect(() => loaderOptions({ fix_errors: 'SOME' })).toThrow(/expected one of NONE, SAFE, LOSSY/)
    expect(() => loaderOptions({ skip_other_geometry_types: true })).toThrow(/cast_geometry_type/)
    expect(loaderOptions({ fid_field: 'a, b' }).fidField).toEqual(['a', 'b'])
  })
})

describe('files/http parseRange', () => {
  it.each([
    ['bytes=0-9', [0, 10]], ['bytes=10-', [10, 100]], ['bytes=-5', [95, 100]], ['bytes=90-200', [90, 100]],
    ['bytes=100-', null], ['bytes=-0', null], ['bytes=0-1,5-6', undefined], ['items=0-9', undefined],
  ] as Array<[string, [number, number] | null | undefined]>)('%s of 100 bytes', (header, want) => {
    expect(parseRange(header, 100)).toEqual(want)
  })
})
