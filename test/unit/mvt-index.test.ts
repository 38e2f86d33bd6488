/**
 * The tile index (sw/mvt/tile-index.ts) against the R*Tree cut (sw/mvt/service.ts
 * `cutLayer` without an index): the same features, geometry and values in every tile, for
 * every geometry type, SRS, value kind and tile option, before and after edits.
 */
import { describe, expect, it } from 'vitest'
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import { cutLayer, tileCacheOf, type TileOptions } from '../../sw/mvt/service.ts'
import { TileCache } from '../../sw/mvt/cache.ts'
import { RtreeNodes } from '../../sw/mvt/select.ts'
import { IndexBuilder, MAX_OVERLAY, type TileIndex } from '../../sw/mvt/tile-index.ts'
import { padBbox, tileBbox } from '../../sw/geo/tile.ts'
import { countUpTo, thinnedEntries } from '../../sw/mvt/packed-tree.ts'
import { GRID, THIN_ABOVE } from '../../sw/mvt/select.ts'
import Flatbush from 'flatbush'
import type { Bbox } from '../../sw/geo/geometry.ts'
import { decodeTile } from '../api/mvt-decode.ts'
import { prng } from '../fuzz/generator.ts'

const app = createApp(nodePlatform({ admin: { password: 'x', mustChange: false }, log: () => {} }))
const services = await app.services()
const headers = { authorization: 'Basic ' + btoa('administrator:x') }
async function call(method: string, path: string, body?: unknown) {
  const res = await app.fetch(new Request(`http://h${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res
}

const FIELDS = [
  { keyname: 'name', datatype: 'STRING' }, { keyname: 'kind', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' },
  { keyname: 'big', datatype: 'BIGINT' }, { keyname: 'x', datatype: 'REAL' }, { keyname: 'ok', datatype: 'BOOLEAN' },
]

/** Around (0, 0) in EPSG:3857, or degrees for EPSG:4326: features at every scale, across tile edges. */
function geometry(type: string, r: () => number, srs: number): string {
  const s = srs === 4326 ? 1 / 111_000 : 1
  const at = () => [(r() - 0.5) * 400_000 * s, (r() - 0.5) * 400_000 * s] as const
  const ring = (cx: number, cy: number, radius: number, n: number) => {
    const pts = Array.from({ length: n }, (_, k) => {
      const a = (k / n) * 2 * Math.PI, q = radius * (0.6 + 0.4 * r())
      return `${cx + q * Math.cos(a)} ${cy + q * Math.sin(a)}`
    })
    return `(${[...pts, pts[0]].join(', ')})`
  }
  const polygon = () => {
    const [cx, cy] = at()
    const radius = 10 ** (1 + r() * 4) * s
    // Every third one has a hole.
    return `(${ring(cx, cy, radius, 5 + Math.floor(r() * 40))}${r() < 0.33 ? ', ' + ring(cx, cy, radius / 4, 6) : ''})`
  }
  const line = () => {
    const [x, y] = at()
    return `(${Array.from({ length: 2 + Math.floor(r() * 20) }, (_, k) => `${x + k * 10 ** (r() * 4) * s} ${y + (r() - 0.5) * 5000 * s}`).join(', ')})`
  }
  switch (type) {
    case 'POINT': { const [x, y] = at(); return `POINT(${x} ${y})` }
    case 'MULTIPOINT': return `MULTIPOINT(${Array.from({ length: 1 + Math.floor(r() * 4) }, () => { const [x, y] = at(); return `(${x} ${y})` }).join(', ')})`
    case 'LINESTRING': return `LINESTRING${line()}`
    case 'MULTILINESTRING': return `MULTILINESTRING(${line()}, ${line()})`
    default: return `MULTIPOLYGON(${Array.from({ length: 1 + Math.floor(r() * 3) }, polygon).join(', ')})`
  }
}

function feature(type: string, r: () => number, srs: number, i: number) {
  const maybe = <T>(v: T) => (r() < 0.15 ? null : v)
  return {
    geom: geometry(type, r, srs),
    fields: { name: maybe(`feature ${i} — ${'ü'.repeat(i % 3)}`), kind: maybe(['road', 'river', 'house'][i % 3]), n: maybe(i - 50),
      big: maybe(i % 7 === 0 ? '9007199254740993' : String(-i * 1_000_000_007)), x: maybe(i / 7), ok: maybe(i % 2 ? 1 : 0) },
  }
}

async function layer(type: string, srs: number, count: number, seed: number): Promise<number> {
  const res = await call('POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `${type} ${srs} ${seed}` },
    vector_layer: { srs: { id: srs }, geometry_type: type, fields: FIELDS } })
  const id = (await res.json()).id as number
  const r = prng(seed)
  await call('PATCH', `/api/resource/${id}/feature/`, Array.from({ length: count }, (_, i) => feature(type, r, srs, i + 1)))
  return id
}

/** Tiles over the data at zooms 3–12: the centre ones and their neighbours (edges crossed). */
const TILES: [number, number, number][] = []
for (const z of [3, 5, 7, 9, 10, 12]) {
  const c = 2 ** (z - 1)
  for (const [dx, dy] of [[0, 0], [-1, -1], [-1, 0], [0, -1]]) TILES.push([z, c + dx!, c + dy!])
}
const OPTIONS: TileOptions[] = [{ extent: 4096, padding: 0.05, simplification: 8 }, { extent: 512, padding: 0, simplification: 0 }]

/** The tile through the API (from the index once it is built). */
async function apiTile(id: number, [z, x, y]: [number, number, number], o: TileOptions) {
  const res = await call('GET', `/api/component/feature_layer/mvt?resource=${id}&z=${z}&x=${x}&y=${y}&extent=${o.extent}&padding=${o.padding}&simplification=${o.simplification}`)
  return res.status === 204 ? {} : decodeTile(new Uint8Array(await res.arrayBuffer()))
}

/** The same tile cut from the R*Tree (no index). */
async function rtreeTile(id: number, [z, x, y]: [number, number, number], o: TileOptions) {
  const fl = (await services.classes.featureLayer(id))!
  const bytes = await fl.gpkg!.read((t) => {
    return cutLayer(t, fl.meta, new RtreeNodes(), { z, x, y }, o)
  })
  return bytes.length ? decodeTile(bytes) : {}
}

async function indexBuilt(id: number) {
  for (let k = 0; k < 200 && !tileCacheOf(services).index(id); k++) {
    if (k === 0) await apiTile(id, TILES[0]!, OPTIONS[0]!)
    await new Promise((r) => setTimeout(r, 5))
  }
  const index = tileCacheOf(services).index(id)
  expect(index, `layer ${id} indexed`).toBeDefined()
  return index!
}

async function expectSameTiles(id: number) {
  tileCacheOf(services).dropLayer(id, false) // cut tiles anew; the index stays
  let features = 0
  for (const t of TILES) {
    for (const o of OPTIONS) {
      const want = await rtreeTile(id, t, o)
      const got = await apiTile(id, t, o)
      expect(got, `tile ${t} ${JSON.stringify(o)}`).toEqual(want)
      features += Object.values(want)[0]?.features.length ?? 0
    }
  }
  return features
}

describe('mvt/tile-index', () => {
  for (const [type, srs] of [['POINT', 4326], ['MULTIPOINT', 3857], ['LINESTRING', 3857], ['MULTILINESTRING', 4326], ['MULTIPOLYGON', 3857], ['MULTIPOLYGON', 4326]] as const) {
    it(`cuts ${type} (EPSG:${srs}) tiles with the features and values the R*Tree cut has`, async () => {
      const id = await layer(type, srs, 400, srs + type.length)
      await indexBuilt(id)
      expect(await expectSameTiles(id)).toBeGreaterThan(400)
    })
  }

  it('follows inserts, updates and deletes through its overlay, then through a rebuild', async () => {
    const id = await layer('MULTIPOLYGON', 3857, 300, 11)
    const index = await indexBuilt(id)
    const r = prng(12)
    await call('PATCH', `/api/resource/${id}/feature/`, [
      ...Array.from({ length: 20 }, (_, i) => ({ id: 3 * i + 1, ...feature('MULTIPOLYGON', r, 3857, 1000 + i) })),
      ...Array.from({ length: 10 }, (_, i) => feature('MULTIPOLYGON', r, 3857, 2000 + i)),
    ])
    await call('DELETE', `/api/resource/${id}/feature/`, [{ id: 2 }, { id: 5 }, { id: 300 }])
    await call('PUT', `/api/resource/${id}/feature/8`, { fields: { name: 'renamed', kind: null } })
    await expectSameTiles(id)
    // Still the same index, the changes beside it.
    expect(tileCacheOf(services).index(id)).toBe(index)
    expect(index.overlaySize).toBe(20 + 10 + 1)
    // Fields renamed, deleted and added: the index goes and is built again with them.
    const fields = (await (await call('GET', `/api/resource/${id}`)).json()).feature_layer.fields as { id: number; keyname: string }[]
    await call('PUT', `/api/resource/${id}`, { feature_layer: { fields: [{ id: fields[1]!.id, keyname: 'class' },
      { id: fields[4]!.id, delete: true }, { keyname: 'extra', datatype: 'INTEGER' }] } })
    await apiTile(id, TILES[0]!, OPTIONS[0]!)
    const again = await indexBuilt(id)
    expect(again).not.toBe(index)
    expect(again.overlaySize).toBe(0)
    await expectSameTiles(id)
    const keys = Object.keys(Object.values(await apiTile(id, [12, 2048, 2047], OPTIONS[0]!))[0]?.features[0]?.properties ?? {})
    expect(keys).not.toContain('kind')
    expect(keys).not.toContain('x')
  })

  it('reads through the layer storage: each change noted once, two cursors of one query kept apart', async () => {
    const id = await layer('POINT', 3857, 5, 61)
    const fl = (await services.classes.featureLayer(id))!
    const take = () => fl.gpkg!.read((t) => t.takeChanges().map((c) => `${c.fid}:${c.old ? 'old' : 'new'}`).sort())
    await take() // the first take starts the notes
    expect(await take()).toEqual([])
    const token = fl.gpkg!.token()
    expect(fl.gpkg!.token()).toBe(token)
    await call('PATCH', `/api/resource/${id}/feature/`, [{ id: 2, geom: 'POINT(1 1)' }, { geom: 'POINT(2 2)' }])
    await call('DELETE', `/api/resource/${id}/feature/`, [{ id: 3 }])
    expect(await take()).toEqual(['2:old', '3:old', '6:new'])
    expect(fl.gpkg!.token()).not.toBe(token) // what the tile cache keys on moved with the writes
    expect(await take()).toEqual([])
    const pairs = await fl.gpkg!.read((t) => {
      const a = t.byFids([1, 2, 4], []), b = t.byFids([1, 2, 4], [])
      const out: number[][] = []
      try { while (a.step() && b.step()) out.push([a.number(0), b.number(0)]) } finally { a.finalize(); b.finalize() }
      return out
    })
    expect(pairs).toEqual([[1, 1], [2, 2], [4, 4]])
  })

  it('reads again what changed behind the scan while it was built in slices', async () => {
    const id = await layer('MULTIPOLYGON', 3857, 1000, 31)
    const fl = (await services.classes.featureLayer(id))!
    const builder = new IndexBuilder(fl.meta, 1 << 30, 0) // a slice of 256 rows
    expect(await fl.gpkg!.read((t) => builder.step(t))).toBeUndefined()
    const r = prng(32)
    // fid 3 was read already, fid 900 not yet; 1001 is new.
    await call('PATCH', `/api/resource/${id}/feature/`, [{ id: 3, ...feature('MULTIPOLYGON', r, 3857, 3) }, { id: 900, ...feature('MULTIPOLYGON', r, 3857, 900) },
      feature('MULTIPOLYGON', r, 3857, 1001)])
    await call('DELETE', `/api/resource/${id}/feature/`, [{ id: 4 }, { id: 901 }])
    builder.changed([3, 900, 1001, 4, 901])
    let index: TileIndex | null | undefined
    for (let k = 0; k < 10 && !index; k++) index = await fl.gpkg!.read((t) => builder.step(t))
    expect(index).toBeTruthy()
    expect(index!.overlaySize).toBe(1) // fid 3: read before it changed
    for (const t of TILES) {
      for (const o of OPTIONS) {
        const [z, x, y] = t
        const tile = tileBbox(z, x, y)
        const pad = o.extent * o.padding
        const bytes = index!.cut(`svc:${id}`, o.extent, { box: padBbox(tile, o.padding), clip: [-pad, -pad, o.extent + pad, o.extent + pad],
          x0: tile[0], y0: tile[3], k: o.extent / (tile[2] - tile[0]), tolerance: o.simplification, cell: 1 }, Infinity)
        expect(bytes.length ? decodeTile(bytes) : {}, `tile ${t}`).toEqual(await rtreeTile(id, t, o))
      }
    }
  })

  it('gives way to a rebuild when more features changed than the overlay keeps', async () => {
    const id = await layer('POINT', 3857, MAX_OVERLAY + 100, 21)
    const index = await indexBuilt(id)
    const r = prng(22)
    await call('PATCH', `/api/resource/${id}/feature/`, Array.from({ length: MAX_OVERLAY + 1 }, (_, i) => ({ id: i + 1, ...feature('POINT', r, 3857, i) })))
    await apiTile(id, TILES[0]!, OPTIONS[0]!)
    const rebuilt = await indexBuilt(id)
    expect(rebuilt).not.toBe(index)
    await expectSameTiles(id)
  })

  it('keeps indexes within the memory budget: a layer too big alone is not indexed, the least recently used goes first', async () => {
    const a = await layer('POINT', 3857, 2000, 41), b = await layer('POINT', 3857, 2000, 42)
    const build = async (id: number, budget: number) => {
      const fl = (await services.classes.featureLayer(id))!
      const builder = new IndexBuilder(fl.meta, budget)
      let index: TileIndex | null | undefined
      for (let k = 0; k < 100 && index === undefined; k++) index = await fl.gpkg!.read((t) => builder.step(t))
      return { fl, builder, index }
    }
    const small = await build(a, 100_000)
    expect(small.index).toBeNull()
    expect(small.builder.tooBig).toBe(true)
    const one = (await build(a, 1 << 30)).index!
    // Room for one of the two layers' indexes, not both.
    const cache = new TileCache(1 << 20, Math.ceil(one.bytes * 1.5))
    for (const id of [a, b]) {
      const { fl, builder, index } = await build(id, 1 << 30)
      await fl.gpkg!.read((t) => cache.sync(id, t, fl.gpkg!.token(), 'fields', 3857))
      expect(cache.wantsIndex(id)).toBe(true)
      cache.startIndex(id, builder)
      expect(cache.indexing(id)).toBe(true)
      cache.finishIndex(id, builder, index!)
      expect(cache.index(id)).toBe(index)
    }
    expect(cache.index(a)).toBeUndefined()
    expect(cache.wantsIndex(a)).toBe(true) // built again when its tiles are asked for
  })

  it('counts a box\'s entries up to a limit and thins a full box to one small entry per cell, as the R*Tree walk does', () => {
    const r = prng(51)
    const n = 20_000
    const tree = new Flatbush(n)
    const boxes: Bbox[] = []
    for (let i = 0; i < n; i++) {
      // Half in a corner, a tenth of them larger than a cell.
      const span = r() < 0.5 ? 100 : 1000, x = r() * span, y = r() * span, w = r() < 0.1 ? 30 * r() : 0
      boxes.push([x, y, x + w, y + w])
      tree.add(x, y, x + w, y + w)
    }
    tree.finish()
    const dead = new Uint8Array(n)
    for (let i = 0; i < n; i += 7) dead[i] = 1
    for (let k = 0; k < 200; k++) {
      const x = r() * 1000, y = r() * 1000, s = 10 ** (r() * 3.3)
      const box: Bbox = [x, y, x + s, y + s]
      const all = tree.search(...box)
      for (const limit of [0, 10, 500, 5000]) {
        const c = countUpTo(tree, box, limit)
        if (all.length > limit) expect(c).toBeGreaterThan(limit)
        else expect(c).toBe(all.length)
      }
      const cell = s / GRID
      const taken = new Set<number>()
      const kept = thinnedEntries(tree, box, cell, dead, taken)
      const small = (i: number) => boxes[i]![2] - boxes[i]![0] < cell && boxes[i]![3] - boxes[i]![1] < cell
      // Every large live entry stays; small ones one per cell at most; no dead entry; all in the box.
      const large = all.filter((i) => !small(i) && !dead[i])
      expect(kept.filter((i) => !small(i)).sort()).toEqual(large.sort())
      expect(kept.every((i) => !dead[i] && all.includes(i))).toBe(true)
      expect(kept.filter(small).length).toBeLessThanOrEqual(taken.size)
      // A cell with a live small entry is never left empty.
      const cells = new Set(all.filter((i) => small(i) && !dead[i]).map((i) =>
        Math.max(0, Math.floor(((boxes[i]![1] + boxes[i]![3]) / 2 - box[1]) / cell)) * (Math.ceil(s / cell) + 1) +
        Math.min(Math.ceil(s / cell), Math.max(0, Math.floor(((boxes[i]![0] + boxes[i]![2]) / 2 - box[0]) / cell)))))
      expect(taken.size).toBe(cells.size)
    }
  })

  it('thins a full tile from the index by the R*Tree\'s rule: one point per cell, every point of a tile that is not full', async () => {
    const fl = await call('POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'grid' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [] } })
    const id = (await fl.json()).id as number
    // A 200 × 100 grid of points 1.5 km apart: more than THIN_ABOVE in one z3 tile.
    await call('PATCH', `/api/resource/${id}/feature/`, Array.from({ length: 200 * 100 }, (_, k) => ({ geom: `POINT(${Math.floor(k / 100) * 1500 + 100} ${(k % 100) * 1500 + 100})` })))
    expect(200 * 100).toBeGreaterThan(THIN_ABOVE)
    await indexBuilt(id)
    tileCacheOf(services).dropLayer(id, false)
    const features = async (z: number, x: number, y: number) => {
      const res = await call('GET', `/api/component/feature_layer/mvt?resource=${id}&z=${z}&x=${x}&y=${y}`)
      expect(res.headers.get('server-timing')).toMatch(/desc=index,/)
      return decodeTile(new Uint8Array(await res.arrayBuffer()))[`svc:${id}`]!.features
    }
    const far = await features(3, 4, 3)
    // The grid spans 300 × 150 km: 8 × 4 cells of 39 km at z3, one point in each (a subtree is
    // judged by its centre, so a cell on its edge may get a neighbour's), as from the R*Tree.
    const cell = 4096 / GRID
    expect(far.length).toBeGreaterThanOrEqual(8 * 4)
    expect(far.length).toBeLessThanOrEqual(9 * 5)
    const cells = new Set(far.map((f) => { const [x, y] = f.geometry[0]![0]!; return `${Math.floor(x / cell)}:${Math.floor(y / cell)}` }))
    expect(cells.size).toBeGreaterThanOrEqual(far.length - 9 * 5 + 8 * 4)
    // z8 tile 128/127 holds 110 × 100 points: not full, so all are there.
    expect(await features(8, 128, 127)).toHaveLength(110 * 100)
  })
})
