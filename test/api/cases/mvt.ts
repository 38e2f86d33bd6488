/**
 * Vector tiles (spec §4.9, reference §9): decoded with `@mapbox/vector-tile` and compared
 * with the features they were cut from; the cache follows every edit.
 */
import type { Api, ApiCase, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { addFeatures, createLayer } from './feature.ts'
import { bytesOf, decodeTile, mercator, tilePosition } from '../mvt-decode.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const RES_NOT_FOUND = 'nextgisweb.resource.exception.ResourceNotFound'
const MVT = 'application/vnd.mapbox-vector-tile'

const layer = (api: Api, expect: Expect, geometryType: string, srs: number, fields: unknown[] = []) =>
  createLayer(api, expect, geometryType, fields, srs)
const add = (api: Api, expect: Expect, id: number, features: unknown[]) => addFeatures(api, expect, id, features, '?dt_format=iso')

const tileUrl = (ids: number[] | number, z: number, x: number, y: number, extra = '') =>
  `/api/component/feature_layer/mvt?resource=${[ids].flat().join(',')}&z=${z}&x=${x}&y=${y}${extra}`

async function tile(api: Api, expect: Expect, url: string) {
  const res = await api.request('GET', url)
  if (res.status === 204) {
    expect(res.text).toBe('')
    return {}
  }
  expect(res.status).toBe(200)
  expect(res.headers['content-type']).toBe(MVT)
  return decodeTile(bytesOf(res.bodyBase64))
}

const FIELDS = [
  { keyname: 'name', datatype: 'STRING', label_field: true }, { keyname: 'n', datatype: 'INTEGER' },
  { keyname: 'v', datatype: 'REAL' }, { keyname: 'ok', datatype: 'BOOLEAN' }, { keyname: 'day', datatype: 'DATE' },
]

/** Sizes of z10 tile 512/511, which holds (1000, 2000) and (5000, 7000) in EPSG:3857. */
const Z = 10, X = 512, Y = 511

export const mvtCases: ApiCase[] = [
  {
    name: 'a point tile carries layer svc:<id>, feature ids = fids, attributes by keyname and exact positions',
    async run(api, expect) {
      const id = await layer(api, expect, 'POINT', 3857, FIELDS)
      const [a, b, far] = await add(api, expect, id, [
        { geom: 'POINT(1000 2000)', fields: { name: 'Well #1', n: 7, v: 2.5, ok: true, day: '2020-02-29' } },
        { geom: 'POINT(5000 7000)', fields: { name: 'Ärger', n: -3, v: null, ok: false, day: null } },
        { geom: 'POINT(3000000 3000000)', fields: { name: 'far' } },
      ])
      const t = await tile(api, expect, tileUrl(id, Z, X, Y))
      expect(Object.keys(t)).toEqual([`svc:${id}`])
      const l = t[`svc:${id}`]!
      expect(l.version).toBe(2)
      expect(l.extent).toBe(4096)
      expect(l.features.map((f) => f.id)).toEqual([a, b])
      expect(l.features[0]).toMatchObject({ type: 1, properties: { name: 'Well #1', n: 7, v: 2.5, ok: true, day: '2020-02-29' } })
      // Nulls are left out.
      expect(l.features[1]!.properties).toEqual({ name: 'Ärger', n: -3, ok: false })
      const at = (f: { geometry: [number, number][][] }) => f.geometry[0]![0]!
      for (const [f, [mx, my]] of [[l.features[0]!, [1000, 2000]], [l.features[1]!, [5000, 7000]]] as const) {
        const [ex, ey] = tilePosition(Z, X, Y, mx, my)
        expect(Math.abs(at(f)[0] - ex)).toBeLessThanOrEqual(1)
        expect(Math.abs(at(f)[1] - ey)).toBeLessThanOrEqual(1)
      }
      expect(far).toBeGreaterThan(b!)
      // The deprecated path answers the same tile.
      const old = await api.request('GET', `/api/resource/${id}/${Z}/${X}/${Y}.mvt`)
      expect(old.status).toBe(200)
      expect(old.headers['content-type']).toBe(MVT)
      expect(decodeTile(bytesOf(old.bodyBase64))).toEqual(t)
      // Another extent scales the positions.
      const small = await tile(api, expect, tileUrl(id, Z, X, Y, '&extent=512'))
      expect(small[`svc:${id}`]!.extent).toBe(512)
      expect(at(small[`svc:${id}`]!.features[0]!)).toEqual(tilePosition(Z, X, Y, 1000, 2000, 512))
    },
  },
  {
    name: 'polygons in EPSG:4326 are clipped to the padded tile and keep their holes, wound as MVT requires',
    async run(api, expect) {
      const id = await layer(api, expect, 'POLYGON', 4326, [{ keyname: 'name', datatype: 'STRING' }])
      const [fid] = await add(api, expect, id, [{ geom: 'POLYGON((10 10,20 10,20 20,10 20,10 10),(12 12,14 12,14 14,12 14,12 12))',
        fields: { name: 'square' } }])
      // z6 tile 34/29 lies inside the outer ring and holds the whole hole.
      const l = (await tile(api, expect, tileUrl(id, 6, 34, 29)))[`svc:${id}`]!
      expect(l.features).toHaveLength(1)
      const f = l.features[0]!
      expect(f).toMatchObject({ id: fid, type: 3, properties: { name: 'square' } })
      expect(f.geometry).toHaveLength(2)
      const [outer, hole] = f.geometry as [number, number][][]
      const xs = outer!.map((p) => p[0]), ys = outer!.map((p) => p[1])
      // Clipped to the tile grown by 5 % (205 of 4096 units) on each side.
      expect([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]).toEqual([-205, -205, 4301, 4301])
      const area = (r: [number, number][]) => r.reduce((s, p, i) => { const q = r[(i + 1) % r.length]!; return s + p[0] * q[1] - q[0] * p[1] }, 0)
      expect(area(outer!)).toBeGreaterThan(0)
      expect(area(hole!)).toBeLessThan(0)
      const expected = [[12, 12], [14, 12], [14, 14], [12, 14]].map(([lon, lat]) => tilePosition(6, 34, 29, ...mercator(lon!, lat!)))
      for (const e of expected) expect(hole!.some((p) => Math.abs(p[0] - e[0]) <= 1 && Math.abs(p[1] - e[1]) <= 1)).toBe(true)
      // Without padding the outer ring is the tile itself.
      const tight = (await tile(api, expect, tileUrl(id, 6, 34, 29, '&padding=0')))[`svc:${id}`]!
      const o = tight.features[0]!.geometry[0]!
      expect([Math.min(...o.map((p) => p[0])), Math.max(...o.map((p) => p[0]))]).toEqual([0, 4096])
    },
  },
  {
    name: 'lines are cut at the padded tile edge; simplification drops vertices within tolerance',
    async run(api, expect) {
      const id = await layer(api, expect, 'LINESTRING', 3857)
      const wiggly = Array.from({ length: 41 }, (_, i) => `${1000 + i * 500} ${20000 + (i % 2) * 3}`).join(',')
      const [cross, wave] = await add(api, expect, id, [{ geom: 'LINESTRING(-100000 1000,100000 1000)' }, { geom: `LINESTRING(${wiggly})` }])
      const l = (await tile(api, expect, tileUrl(id, Z, X, Y)))[`svc:${id}`]!
      const line = l.features.find((f) => f.id === cross)!
      expect(line.type).toBe(2)
      const [y] = [tilePosition(Z, X, Y, 0, 1000)[1]]
      expect(line.geometry).toEqual([[[-205, y], [4301, y]]])
      const simple = l.features.find((f) => f.id === wave)!.geometry[0]!
      const full = (await tile(api, expect, tileUrl(id, Z, X, Y, '&simplification=0')))[`svc:${id}`]!
        .features.find((f) => f.id === wave)!.geometry[0]!
      // 3 m waves are 0.3 tile units at z10: simplified away by default, rounded away at 0.
      expect(simple.length).toBe(2)
      expect(full.length).toBeLessThanOrEqual(41)
      expect(simple[0]).toEqual(full[0])
    },
  },
  {
    name: 'an empty tile is 204 without a body; several resources are layers of one tile, in order',
    async run(api, expect) {
      const a = await layer(api, expect, 'POINT', 3857)
      const b = await layer(api, expect, 'POINT', 3857)
      const empty = await api.request('GET', tileUrl([a, b], Z, X, Y))
      expect(empty.status).toBe(204)
      expect(empty.text).toBe('')
      await add(api, expect, a, [{ geom: 'POINT(1000 2000)' }])
      await add(api, expect, b, [{ geom: 'POINT(5000 7000)' }])
      const t = await tile(api, expect, tileUrl([b, a], Z, X, Y))
      expect(Object.keys(t)).toEqual([`svc:${b}`, `svc:${a}`])
      // A layer without features in the tile adds no MVT layer.
      expect(Object.keys(await tile(api, expect, tileUrl([a, await layer(api, expect, 'POINT', 3857)], Z, X, Y)))).toEqual([`svc:${a}`])
    },
  },
  {
    name: 'a cached tile follows every edit: move, attribute change, delete and create',
    async run(api, expect) {
      const id = await layer(api, expect, 'POINT', 3857, [{ keyname: 'name', datatype: 'STRING' }])
      const [fid] = await add(api, expect, id, [{ geom: 'POINT(1000 2000)', fields: { name: 'a' } }])
      const other = { x: 600, y: 511 }
      const size = 2 * 20037508.342789244 / 2 ** Z
      const mx = -20037508.342789244 + (other.x + 0.5) * size, my = 20037508.342789244 - (other.y + 0.5) * size
      const names = async (x: number, y: number) =>
        ((await tile(api, expect, tileUrl(id, Z, x, y)))[`svc:${id}`]?.features ?? []).map((f) => `${f.id}:${f.properties.name}`)
      expect(await names(X, Y)).toEqual([`${fid}:a`])
      expect(await names(other.x, other.y)).toEqual([])
      // Server-Timing tells a cut tile from a cached one, empty (204) tiles too.
      const timing = async (x: number, y: number) => (await api.request('GET', tileUrl(id, Z, x, y))).headers['server-timing']
      expect(await timing(X, Y)).toMatch(/^cache;dur=\d+\.\d\d$/)
      expect(await timing(other.x, other.y)).toMatch(/^cache;dur=\d+\.\d\d$/)
      // A cut names its phases, which add up to its time (within their rounding).
      const cut = await timing(X, Y + 1)
      expect(cut).toMatch(/^cut;dur=\d+\.\d\d;desc=(index|rtree|indexing|engine|generic), tokens;dur=[\d.]+, auth;dur=[\d.]+, check;dur=[\d.]+, layers;dur=[\d.]+, engine;dur=[\d.]+, tile;dur=[\d.]+$/)
      const [total, ...phases] = [...cut!.matchAll(/dur=([\d.]+)/g)].map((m) => Number(m[1]))
      expect(Math.abs(phases.reduce((a, b) => a + b, 0) - total!)).toBeLessThan(0.05)
      // Both tiles are cached now; moving the feature must change both.
      expect((await api.request('PUT', `/api/resource/${id}/feature/${fid}`, { body: { geom: `POINT(${mx} ${my})` } })).status).toBe(200)
      expect(await names(X, Y)).toEqual([])
      expect(await names(other.x, other.y)).toEqual([`${fid}:a`])
      await api.request('PUT', `/api/resource/${id}/feature/${fid}`, { body: { fields: { name: 'b' } } })
      expect(await names(other.x, other.y)).toEqual([`${fid}:b`])
      await api.request('DELETE', `/api/resource/${id}/feature/${fid}`)
      expect(await names(other.x, other.y)).toEqual([])
      const [again] = await add(api, expect, id, [{ geom: 'POINT(1000 2000)', fields: { name: 'c' } }])
      expect(await names(X, Y)).toEqual([`${again}:c`])
      // A field renamed: the attribute keys follow.
      const meta = await api.request('GET', `/api/resource/${id}`)
      const field = meta.body.feature_layer.fields[0]
      await api.request('PUT', `/api/resource/${id}`, { body: { feature_layer: { fields: [{ id: field.id, keyname: 'title' }] } } })
      const t = await tile(api, expect, tileUrl(id, Z, X, Y))
      expect(t[`svc:${id}`]!.features[0]!.properties).toEqual({ title: 'c' })
    },
  },
  {
    name: 'tiles come from the layer\'s tile index once it is built, and show every edit at once',
    async run(api, expect) {
      const id = await layer(api, expect, 'POINT', 3857, [{ keyname: 'name', datatype: 'STRING' }])
      // 300 points on a 3 × 3 km grid around (1000, 2000), all in tile Z/X/Y.
      const fids = await add(api, expect, id, Array.from({ length: 300 }, (_, i) =>
        ({ geom: `POINT(${1000 + (i % 20) * 150} ${2000 + Math.floor(i / 20) * 200})`, fields: { name: `p${i}` } })))
      // A new `extent` each time: never the tile cache.
      let extent = 4096
      const cut = async () => {
        const res = await api.request('GET', tileUrl(id, Z, X, Y, `&extent=${extent--}`))
        expect(res.status).toBe(200)
        const source = /;desc=(\w+)/.exec(res.headers['server-timing'] ?? '')?.[1]
        const names = decodeTile(bytesOf(res.bodyBase64))[`svc:${id}`]!.features.map((f) => f.properties.name as string)
        return { source, names: names.sort() }
      }
      const all = Array.from({ length: 300 }, (_, i) => `p${i}`).sort()
      let first = await cut()
      expect(first.names).toEqual(all)
      for (let k = 0; k < 100 && first.source !== 'index'; k++) {
        expect(first.source).toMatch(/^(indexing|rtree)$/)
        await new Promise((resolve) => setTimeout(resolve, 20))
        first = await cut()
      }
      expect(first.source).toBe('index')
      expect(first.names).toEqual(all)
      // Edits: one renamed, one moved out of the tile, one deleted, one created.
      expect((await api.request('PUT', `/api/resource/${id}/feature/${fids[0]}`, { body: { fields: { name: 'renamed' } } })).status).toBe(200)
      expect((await api.request('PUT', `/api/resource/${id}/feature/${fids[1]}`, { body: { geom: 'POINT(5000000 5000000)' } })).status).toBe(200)
      expect((await api.request('DELETE', `/api/resource/${id}/feature/${fids[2]}`)).status).toBe(200)
      await add(api, expect, id, [{ geom: 'POINT(1500 2500)', fields: { name: 'new' } }])
      const after = await cut()
      expect(after.source).toBe('index')
      expect(after.names).toEqual([...all.filter((n) => !['p0', 'p1', 'p2'].includes(n)), 'renamed', 'new'].sort())
    },
  },
  {
    name: 'bad tile requests are 404 for a missing layer and 422 for the rest',
    async run(api, expect) {
      const id = await layer(api, expect, 'POINT', 3857)
      const group = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: uniq('G') } } })
      expectError(expect, await api.request('GET', tileUrl(999999, 0, 0, 0)), 404, RES_NOT_FOUND)
      const notLayer = await api.request('GET', tileUrl(group.body.id, 0, 0, 0))
      expectError(expect, notLayer, 422, VALIDATION)
      expect(notLayer.body.message).toBe(`Resource (ID=${group.body.id}) is not a feature layer.`)
      for (const q of ['z=0&x=0&y=0', `resource=${id}&x=0&y=0`, `resource=${id}&z=1&x=2&y=0`, `resource=${id}&z=25&x=0&y=0`,
        `resource=${id}&z=0&x=0&y=0&simplification=9`, `resource=${id}&z=0&x=0&y=0&padding=0.6`, `resource=${id}&z=a&x=0&y=0`,
        `resource=x&z=0&x=0&y=0`, `resource=${id}&z=0&x=0&y=0&extent=0`]) {
        expectError(expect, await api.request('GET', `/api/component/feature_layer/mvt?${q}`), 422, VALIDATION)
      }
    },
  },
]
