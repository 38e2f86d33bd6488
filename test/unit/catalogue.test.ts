import { describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { decode } from 'fast-png'
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import { coverResize, decodeRgba, encodeRgba } from '../../sw/image/png.ts'
import { parseGeometry } from '../../sw/catalogue/geometry.ts'
import { intersects } from '../../sw/geo/flat.ts'
import { altUrls } from '../../sw/catalogue/records.ts'
import { readCatalogueFolder } from '../../sw/catalogue/folder.ts'
import { qmsDir, qmsIconPng } from '../api/cases/catalogue-data.ts'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'

const app = () => createApp(nodePlatform({ admin: { password: 'pw', mustChange: false }, log: () => {} }))
const get = (a: ReturnType<typeof app>, path: string, init: RequestInit = {}) => a.fetch(new Request(`http://h.example${path}`, init))

describe('catalogue over the app (no HTTP)', () => {
  it('serves the built-in default catalogue on a fresh store, with licences and attribution', async () => {
    const a = app()
    const list = await (await get(a, '/api/v1/geoservices/')).json()
    expect(list.map((x: { name: string }) => x.name)).toContain('OpenStreetMap Standard')
    const osm = list.find((x: { name: string }) => x.name === 'OpenStreetMap Standard')
    const d = await (await get(a, `/api/v1/geoservices/${osm.id}/`)).json()
    expect(d).toMatchObject({ url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', copyright_text: '© OpenStreetMap contributors',
      license_name: 'Open Database License (ODbL)' })
    const wms = list.filter((x: { type: string }) => x.type === 'wms')
    expect(wms.length).toBeGreaterThan(0)
    const icon = await get(a, `/api/v1/icons/${d.icon}/content?width=20&height=20`)
    expect(decode(new Uint8Array(await icon.arrayBuffer()))).toMatchObject({ width: 20, height: 20 })
    const def = decode(new Uint8Array(await (await get(a, '/api/v1/icons/default?width=64&height=64')).arrayBuffer()))
    expect([def.width, def.height]).toEqual([64, 64])
  })

  it('redirects slash-less and double-slash paths with 301, keeping the query, with CORS headers', async () => {
    const a = app()
    for (const [from, to] of [['/api/v1/geoservices?search=osm', '/api/v1/geoservices/?search=osm'], ['/api/v1', '/api/v1/'],
      ['/api/v1/geoservices/1', '/api/v1/geoservices/1/'], ['/api/v1//icons/', '/api/v1/icons/'], ['/api/v1/icons', '/api/v1/icons/']]) {
      const res = await get(a, from!, { headers: { origin: 'https://x.example' }, redirect: 'manual' })
      expect(res.status, from).toBe(301)
      expect(res.headers.get('location')).toBe(to)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
    }
    expect((await get(a, '/api/v1/icons/default/')).status).toBe(404)
    expect((await get(a, '/api/v1/geoservices/abc')).status).toBe(404)
  })

  it('answers a CORS preflight before routing, even for unknown paths', async () => {
    const a = app()
    for (const p of ['/api/v1/geoservices/', '/api/v1/nowhere']) {
      const res = await get(a, p, { method: 'OPTIONS', headers: { origin: 'https://x.example', 'access-control-request-method': 'GET' } })
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('')
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, OPTIONS')
      expect(res.headers.get('access-control-max-age')).toBe('86400')
      expect(res.headers.get('access-control-allow-headers')).toContain('authorization')
    }
  })

  it('the QMS folder reader builds an import that the API accepts', async () => {
    const a = app()
    const dir = qmsDir()
    const body = await readCatalogueFolder((n) => readFile(join(dir, n)).then((b) => new Uint8Array(b), () => undefined))
    const auth = 'Basic ' + btoa('administrator:pw')
    const res = await get(a, '/api/component/outpost/catalogue/import', { method: 'POST', body: JSON.stringify(body), headers: { authorization: auth } })
    expect(await res.json()).toEqual({ geoservices: 192, icons: 50, geoservice_status: 576 })
    // The imported default icon (100 × 100) replaces the built-in one.
    const def = decode(new Uint8Array(await (await get(a, '/api/v1/icons/default?width=50&height=50')).arrayBuffer()))
    const ref = coverResize(decodeRgba(qmsIconPng('default')), 50, 50)
    expect(Buffer.from(def.data as Uint8Array).equals(Buffer.from(ref.data))).toBe(true)
  })
})

describe('catalogue change token', () => {
  it('re-reads the index and the resized icons when the store changes behind the catalogue', async () => {
    const a = app()
    const before = await (await get(a, '/api/v1/geoservices/')).json()
    expect(before.length).toBeGreaterThan(1)
    const icon = async () => new Uint8Array(await (await get(a, '/api/v1/icons/default?width=8&height=8')).arrayBuffer())
    const builtin = await icon()
    // Another writer of the store (what a second process is on PostgreSQL): one service, a red default icon.
    const store = await (await a.services()).data.catalogue()
    const { services } = await store.load()
    const red = encodeRgba({ width: 2, height: 2, data: new Uint8Array(16).fill(255).map((v, i) => (i % 4 === 1 || i % 4 === 2 ? 0 : v)) })
    await store.replace({ services: services.slice(0, 1), statuses: [], icons: [], defaultIcon: red }, 'import')
    const after = await (await get(a, '/api/v1/geoservices/')).json()
    expect(after.map((x: { id: number }) => x.id)).toEqual([services[0]!.id])
    const now = await icon()
    expect(Buffer.from(now).equals(Buffer.from(builtin))).toBe(false)
    expect(Array.from(decode(now).data.slice(0, 4))).toEqual([255, 0, 0, 255])
  })
})

describe('catalogue PNG resize', () => {
  const solid = (w: number, h: number, f: (x: number, y: number) => number[]) => {
    const data = new Uint8Array(w * h * 4)
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(f(x, y), (y * w + x) * 4)
    return { width: w, height: h, data }
  }
  it('covers then crops the centre: a 2:1 image in a square keeps its middle half', () => {
    // Left quarter green, middle-left red, middle-right blue, right quarter green.
    const img = solid(100, 50, (x) => (x < 25 || x >= 75 ? [0, 255, 0, 255] : x < 50 ? [255, 0, 0, 255] : [0, 0, 255, 255]))
    const out = decodeRgba(encodeRgba(coverResize(img, 32, 32)))
    expect([out.width, out.height]).toEqual([32, 32])
    const px = (x: number, y: number) => Array.from(out.data.slice((y * 32 + x) * 4, (y * 32 + x) * 4 + 4))
    expect(px(2, 16)).toEqual([255, 0, 0, 255])
    expect(px(29, 16)).toEqual([0, 0, 255, 255])
  })
  it('enlarges small icons and keeps transparency; decodes palette and grey PNGs', () => {
    const img = solid(8, 8, (x) => (x < 4 ? [10, 20, 30, 0] : [200, 100, 50, 255]))
    const out = coverResize(img, 64, 64)
    expect(out.data[3]).toBe(0)
    expect(Array.from(out.data.slice((10 * 64 + 63) * 4, (10 * 64 + 64) * 4))).toEqual([200, 100, 50, 255])
    for (const id of [199, 203, 248]) {
      const r = coverResize(decodeRgba(qmsIconPng(id)), 24, 24)
      expect(decode(encodeRgba(r))).toMatchObject({ width: 24, height: 24 })
    }
  })
})

describe('catalogue geometry', () => {
  it('intersects like ST_Intersects: touching counts, holes do not, points and lines work', () => {
    const box = parseGeometry('POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4))')
    expect(intersects(box, parseGeometry('POINT(5 5)'))).toBe(false)
    expect(intersects(box, parseGeometry('POINT(10 5)'))).toBe(true)
    expect(intersects(box, parseGeometry('POINT(2 2)'))).toBe(true)
    expect(intersects(box, parseGeometry('LINESTRING(-5 5, 15 5)'))).toBe(true)
    expect(intersects(box, parseGeometry('POLYGON((1 1, 2 1, 2 2, 1 1))'))).toBe(true)
    expect(intersects(parseGeometry('POLYGON((1 1, 2 1, 2 2, 1 1))'), box)).toBe(true)
    expect(intersects(box, parseGeometry('POLYGON((11 11, 12 11, 12 12, 11 11))'))).toBe(false)
    expect(intersects(box, parseGeometry('POLYGON((-1 -1, 11 -1, 11 11, -1 11, -1 -1))'))).toBe(true)
    const merc = parseGeometry('SRID=3857;POINT(1113194.9079327357 0)')
    expect(merc.points[0]).toBeCloseTo(10, 6)
    expect(() => parseGeometry('SRID=1;POINT(1 2)')).toThrow(/SRID/)
  })
  it('alt_urls reproduce the original: word characters glued to the switch are dropped', () => {
    expect(altUrls('http://tile-{switch:a,b}.osm.fr/{z}')).toEqual(['http://a.osm.fr/{z}', 'http://b.osm.fr/{z}'])
    expect(altUrls('https://{switch:a,b}.t.org/{z}/{x}/{y}')).toEqual(['https://a.t.org/{z}/{x}/{y}', 'https://b.t.org/{z}/{x}/{y}'])
    expect(altUrls('https://t.org/{z}/{x}/{y}')).toEqual([])
  })
})

describe('npm run serve -- --catalogue', () => {
  it('replaces the default catalogue with the folder at start', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'sw/host/node-main.ts', '--port', '0', '--memory', '--catalogue', qmsDir()],
      { env: { ...process.env, OUTPOST_ADMIN_PASSWORD: 'x-pw' }, stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = ''
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString()
          const m = /listening on (http:\/\/\S+)/.exec(out)
          if (m) resolve(m[1]!)
        })
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
      })
      const res = await fetch(`${base}/api/v1/geoservices/?limit=1`)
      expect((await res.json()).count).toBe(192)
    } finally {
      child.kill('SIGTERM')
    }
  }, 60_000)
})
