import type { ApiCase } from '../harness.ts'
import { createLayer } from './feature.ts'

const FIELDS = [
  { keyname: 'name', datatype: 'STRING' },
  { keyname: 'count', datatype: 'INTEGER' },
  { keyname: 'big', datatype: 'BIGINT' },
  { keyname: 'depth', datatype: 'REAL' },
  { keyname: 'day', datatype: 'DATE' },
]

interface Point { x: number; y: number; fields: Record<string, unknown> }

/** `n` points on a 50-column grid; fields vary so that rows take several column sets. */
function points(n: number, from: number): Point[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k
    const fields: Record<string, unknown> = { name: `pt ${i} – Ünï ${'漢'.repeat(i % 3)}`, count: i - 500, depth: i / 7 }
    if (i % 5 === 0) fields.big = '9007199254740993'
    if (i % 7 === 0) fields.day = `2024-0${1 + (i % 9)}-1${i % 10}`
    if (i % 11 === 0) fields.depth = null
    return { x: (i % 50) * 10 + 0.1, y: Math.floor(i / 50) * 10 - 0.7, fields }
  })
}

const body = (ps: Point[]) => ps.map((p) => ({ geom: `POINT(${p.x} ${p.y})`, fields: p.fields }))

export const featureBulkCases: ApiCase[] = [
  {
    name: 'large batches (packed spatial index) store every value and answer intersects like single writes',
    async run(api, expect) {
      const layer = await createLayer(api, expect, 'POINT', FIELDS)
      const base = `/api/resource/${layer}/feature/`
      const all: (Point & { id: number })[] = []
      // A fresh index, one as large as the tree, and one small against it: all three paths.
      for (const [n, from] of [[1200, 0], [700, 1200], [300, 1900]]) {
        const ps = points(n, from)
        const res = await api.request('PATCH', base, { body: body(ps) })
        expect(res.status).toBe(200)
        expect(res.body).toHaveLength(n)
        res.body.forEach((r: { id: number }, k: number) => all.push({ ...ps[k]!, id: r.id }))
      }
      expect((await api.request('GET', `/api/resource/${layer}/feature_count`)).body).toEqual({ total_count: 2200 })

      const box = { minX: 95, minY: 95, maxX: 205, maxY: 305 }
      const inBox = (p: { x: number; y: number }) => p.x >= box.minX && p.x <= box.maxX && p.y >= box.minY && p.y <= box.maxY
      const wkt = encodeURIComponent(`POLYGON((${box.minX} ${box.minY}, ${box.maxX} ${box.minY}, ${box.maxX} ${box.maxY}, ${box.minX} ${box.maxY}, ${box.minX} ${box.minY}))`)
      const found = async () => (await api.request('GET', `${base}?intersects=${wkt}&geom=no&fields=`)).body.map((f: { id: number }) => f.id)
      const expected = all.filter(inBox).map((p) => p.id)
      expect(expected.length).toBeGreaterThan(100)
      expect(await found()).toEqual(expected)

      for (const p of [all[0]!, all[1234]!, all[1999]!, all[2199]!]) {
        const f = (await api.request('GET', `${base}${p.id}?dt_format=iso`)).body
        expect(f.geom).toBe(`POINT(${p.x} ${p.y})`)
        expect(f.fields).toEqual({ big: null, day: null, ...p.fields })
      }

      // Moving, deleting and adding single features keeps the index right.
      const outside = all.find((p) => !inBox(p))!
      const inside = all.find(inBox)!
      expect((await api.request('PUT', `${base}${outside.id}`, { body: { geom: 'POINT(100 100)' } })).status).toBe(200)
      expect((await api.request('DELETE', `${base}${inside.id}`)).status).toBe(200)
      const added = (await api.request('POST', base, { body: { geom: 'POINT(200 300)' } })).body.id as number
      expect(await found()).toEqual([...expected.filter((id) => id !== inside.id), outside.id, added].sort((a, b) => a - b))
    },
  },
  {
    name: 'whole numbers beyond 2^53 in a REAL field keep their value on POST, PATCH and PUT',
    async run(api, expect) {
      const layer = await createLayer(api, expect, 'POINT', [{ keyname: 'depth', datatype: 'REAL' }])
      const base = `/api/resource/${layer}/feature/`
      const a = (await api.request('POST', base, { body: { geom: 'POINT(0 0)', fields: { depth: 1e20 } } })).body.id
      const [b] = (await api.request('PATCH', base, { body: [{ geom: 'POINT(1 1)', fields: { depth: -3e25 } }] })).body.map((r: { id: number }) => r.id)
      expect((await api.request('PUT', `${base}${b}`, { body: { fields: { depth: 2 ** 70 } } })).status).toBe(200)
      expect((await api.request('GET', `${base}${a}`)).body.fields.depth).toBe(1e20)
      expect((await api.request('GET', `${base}${b}`)).body.fields.depth).toBe(2 ** 70)
    },
  },
  {
    name: 'a large polygon batch keeps envelopes and the spatial index right',
    async run(api, expect) {
      const layer = await createLayer(api, expect, 'POLYGON', [{ keyname: 'name', datatype: 'STRING' }])
      const base = `/api/resource/${layer}/feature/`
      const square = (i: number) => {
        const x = (i % 30) * 100, y = Math.floor(i / 30) * 100, s = 10 + (i % 7) * 10
        return `POLYGON((${x} ${y},${x + s} ${y},${x + s} ${y + s},${x} ${y + s},${x} ${y}))`
      }
      const res = await api.request('PATCH', base, { body: Array.from({ length: 600 }, (_, i) => ({ geom: square(i), fields: { name: `p${i}` } })) })
      expect(res.status).toBe(200)
      const ids = res.body.map((r: { id: number }) => r.id)
      const extent = await api.request('GET', `${base}${ids[37]}/geometry_info`)
      expect(extent.body.extent).toEqual({ minX: 700, minY: 100, maxX: 730, maxY: 130 })
      expect((await api.request('GET', `${base}${ids[599]}`)).body.geom).toBe(square(599))
      const hit = await api.request('GET', `${base}?intersects=${encodeURIComponent('POINT(715 115)')}&geom=no`)
      expect(hit.body.map((f: { id: number }) => f.id)).toEqual([ids[37]])
    },
  },
]
