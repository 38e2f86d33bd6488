import { describe, expect, it } from 'vitest'
import { exportFileName } from '../../src/api/map.ts'
import { flatAtAntimeridian } from '../../scripts/antimeridian.ts'

describe('exportFileName', () => {
  it('saves under the layer name with the served extension', () => {
    expect(exportFileName('Wells', '5.gpkg')).toBe('Wells.gpkg')
    expect(exportFileName('Wells', '5.gpkg.zip')).toBe('Wells.gpkg.zip')
  })
  it('replaces what file systems refuse, keeps the served name when nothing is left', () => {
    expect(exportFileName('Woods: north/south?', '7.geojson')).toBe('Woods_ north_south_.geojson')
    expect(exportFileName('CON', '7.csv')).toBe('7.csv')
    expect(exportFileName('///', '7.csv')).toBe('7.csv')
  })
})

describe('flatAtAntimeridian', () => {
  it('leaves no edge longer than 180° and draws both sides of a crossing ring', () => {
    const fiji = { type: 'Polygon' as const, coordinates: [[[179, -16], [-179, -16], [-179, -17], [179, -17], [179, -16]]] }
    const out = flatAtAntimeridian(fiji)
    expect(out.type).toBe('MultiPolygon')
    const polys = (out as { coordinates: number[][][][] }).coordinates
    expect(polys).toHaveLength(2)
    for (const ring of polys.map((p) => p[0]!)) {
      ring.slice(1).forEach((p, i) => expect(Math.abs(p[0]! - ring[i]![0]!)).toBeLessThanOrEqual(180))
    }
    expect(polys.map((p) => Math.min(...p[0]!.map((q) => q[0]!)))).toEqual([179, -181])
  })
})
