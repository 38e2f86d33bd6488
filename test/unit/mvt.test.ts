import { describe, expect, it } from 'vitest'
import { clipLine, clipRing, clipPoints } from '../../sw/mvt/clip.ts'
import { quantize, simplify } from '../../sw/mvt/simplify.ts'
import { cutShape } from '../../sw/mvt/cut.ts'
import { LayerEncoder } from '../../sw/mvt/encode.ts'
import { POINT, POLYGON, LINE } from '../../sw/mvt/shape.ts'
import { GRID, THIN_ABOVE } from '../../sw/mvt/select.ts'
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import { decodeTile } from '../api/mvt-decode.ts'
import type { Bbox } from '../../sw/geo/geometry.ts'

const BOX: Bbox = [0, 0, 100, 100]

describe('mvt/clip', () => {
  it('keeps points inside the box, boundary included', () => {
    expect(clipPoints([0, 0, 50, 50, 101, 5, 100, 100], BOX)).toEqual([0, 0, 50, 50, 100, 100])
  })
  it('cuts a ring crossing one side at the side', () => {
    const r = clipRing([50, 50, 150, 50, 150, 80, 50, 80, 50, 50], BOX)!
    expect(r.slice(0, 2)).toEqual(r.slice(-2))
    const xs = r.filter((_, i) => i % 2 === 0)
    expect(Math.max(...xs)).toBe(100)
    expect(new Set(xs)).toEqual(new Set([50, 100]))
  })
  it('returns null for a ring outside the box', () => {
    expect(clipRing([200, 200, 300, 200, 300, 300, 200, 200], BOX)).toBeNull()
  })
  it('splits a line that leaves and re-enters into two lines', () => {
    expect(clipLine([10, 50, 150, 50, 150, 60, 10, 60], BOX)).toEqual([[10, 50, 100, 50], [100, 60, 10, 60]])
  })
})

describe('mvt/simplify', () => {
  it('drops vertices within the tolerance and keeps the ends', () => {
    expect(simplify([0, 0, 5, 0.4, 10, 0, 15, 0.2, 20, 0], 1)).toEqual([0, 0, 20, 0])
    expect(simplify([0, 0, 5, 3, 10, 0], 1)).toEqual([0, 0, 5, 3, 10, 0])
  })
  it('rounds to the grid and drops repeated positions', () => {
    expect(quantize([0.2, 0.4, 0.1, 0.3, 1.6, 2])).toEqual([0, 0, 2, 2])
  })
})

describe('mvt/cut', () => {
  it('winds outer rings clockwise on screen and holes the other way', () => {
    const ccw = [0, 0, 0, 50, 50, 50, 50, 0, 0, 0] // counter-clockwise with y down
    const cut = cutShape({ type: POLYGON, polygons: [[ccw, [10, 10, 20, 10, 20, 20, 10, 20, 10, 10]]] }, BOX, 0)
    expect(cut?.type).toBe(POLYGON)
    const [outer, hole] = (cut as { polygons: number[][][] }).polygons[0]!
    const area = (r: number[]) => { let s = 0; for (let i = 0; i < r.length - 2; i += 2) s += r[i]! * r[i + 3]! - r[i + 2]! * r[i + 1]!; return s }
    expect(area(outer!)).toBeGreaterThan(0)
    expect(area(hole!)).toBeLessThan(0)
  })
  it('drops a polygon that collapses on the grid, and its holes with it', () => {
    expect(cutShape({ type: POLYGON, polygons: [[[1, 1, 1.2, 1, 1.2, 1.2, 1, 1]]] }, BOX, 0)).toBeNull()
    expect(cutShape({ type: LINE, lines: [[1, 1, 1.2, 1.1]] }, BOX, 0)).toBeNull()
  })
})

describe('mvt/encode', () => {
  it('writes a layer that an independent reader decodes with every value kind', () => {
    const enc = new LayerEncoder('svc:7', 4096, ['s', 'i', 'd', 'b'], ['string', 'int', 'double', 'bool'])
    enc.add(1, { type: POINT, points: [10, 20] }, ['x', -5, 2.5, true])
    enc.add(9007199254740000, { type: LINE, lines: [[0, 0, 10, 0, 10, 10]] }, [null, 12345678901, 1, false])
    enc.add(3, { type: POLYGON, polygons: [[[0, 0, 10, 0, 10, 10, 0, 0]]] }, ['big', '12345678901234567890', null, null])
    const t = decodeTile(enc.finish())['svc:7']!
    expect(t.extent).toBe(4096)
    expect(t.features.map((f) => [f.id, f.type, f.properties])).toEqual([
      [1, 1, { s: 'x', i: -5, d: 2.5, b: true }],
      [3, 3, { s: 'big', i: '12345678901234567890' }],
      [9007199254740000, 2, { i: 12345678901, d: 1, b: false }],
    ])
    expect(t.features[0]!.geometry).toEqual([[[10, 20]]])
    expect(t.features[1]!.geometry).toEqual([[[0, 0], [10, 0], [10, 10], [0, 0]]])
    expect(t.features[2]!.geometry).toEqual([[[0, 0], [10, 0], [10, 10]]])
  })
  it('writes a point through addPoint exactly as through add', () => {
    const keys = ['s', 'i'], kinds = ['string', 'int'] as const
    const a = new LayerEncoder('svc:2', 4096, keys, [...kinds]), b = new LayerEncoder('svc:2', 4096, keys, [...kinds])
    const cases: [number, number, number, (string | number | null)[]][] = [
      [1, 0, 0, ['a', 1]], [127, -205, 4301, [null, null]], [128, 4096, -1, ['long text '.repeat(20), -7]],
      [2 ** 32 + 5, 65535, -65535, ['a', 300]], [9007199254740000, 1, 2, [null, 2 ** 40]],
    ]
    for (const [id, x, y, values] of cases) {
      a.addPoint(id, x, y, values)
      b.add(id, { type: POINT, points: [x, y] }, values)
    }
    expect(a.finish()).toEqual(b.finish())
  })
  it('writes nothing for a layer without features', () => {
    expect(new LayerEncoder('svc:1', 4096, [], []).finish()).toHaveLength(0)
  })
})

describe('mvt/select: thinning of full tiles', () => {
  it('keeps at most one small feature per cell of a full tile, and every feature of a tile that is not full', async () => {
    const app = createApp(nodePlatform({ admin: { password: 'x', mustChange: false }, log: () => {} }))
    const headers = { authorization: 'Basic ' + btoa('administrator:x') }
    const call = async (method: string, path: string, body?: unknown) =>
      app.fetch(new Request(`http://h${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
    const id = (await (await call('POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'many' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [] } })).json()).id
    // A 200 × 100 grid of points 1.5 km apart: more than THIN_ABOVE in one z3 tile.
    const feats = []
    for (let i = 0; i < 200; i++) for (let j = 0; j < 100; j++) feats.push({ geom: `POINT(${i * 1500 + 100} ${j * 1500 + 100})` })
    expect(feats.length).toBeGreaterThan(THIN_ABOVE)
    expect((await call('PATCH', `/api/resource/${id}/feature/`, feats)).status).toBe(200)
    const tileOf = async (z: number, x: number, y: number) => {
      const res = await call('GET', `/api/component/feature_layer/mvt?resource=${id}&z=${z}&x=${x}&y=${y}`)
      expect(res.status).toBe(200)
      return decodeTile(new Uint8Array(await res.arrayBuffer()))[`svc:${id}`]!.features
    }
    const far = await tileOf(3, 4, 3)
    const cell = 4096 / GRID
    const cells = far.map((f) => { const [x, y] = f.geometry[0]![0]!; return `${Math.floor(x / cell)}:${Math.floor(y / cell)}` })
    // The grid spans 300 × 150 km: 8 × 4 cells of 39 km at z3, one point in each.
    expect(far.length).toBeGreaterThanOrEqual(8 * 4)
    expect(far.length).toBeLessThanOrEqual(9 * 5)
    expect(new Set(cells).size).toBeGreaterThanOrEqual(far.length - 9 * 5 + 8 * 4)
    // z8 tile 128/127 (0…156.5 km, grown by 5 %) holds 110 × 100 points: not full, so all are there.
    const edge = 2 * 20037508.342789244 / 2 ** 8 * 1.05
    const inside = feats.filter((f) => { const [x, y] = f.geom.slice(6, -1).split(' ').map(Number); return x! <= edge && y! <= edge })
    expect(inside.length).toBe(110 * 100)
    expect(await tileOf(8, 128, 127)).toHaveLength(inside.length)
  })
})
