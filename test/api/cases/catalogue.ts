/**
 * The geoservice catalogue API (spec/catalogue-api.md, reference/qms-api.md) against the QMS
 * data set in ../shared/data/qms/, which each case imports first unless the server already
 * serves it. Expectations are computed from the data files, not from the server's code.
 */
import type { Api, ApiCase, ApiRequest, ApiResponse, Expect } from '../harness.ts'
import { expectError, requestAll } from '../harness.ts'
import { ensureQms, LIST_KEYS, newestStatus, qmsData } from './catalogue-data.ts'

const G = (api: Api, path: string, headers: Record<string, string> = {}) => api.request('GET', path, { auth: 'guest', headers })

type Rec = Record<string, any> // reason: records of the data set are plain JSON

/** The list item the server must produce for a data record (README: statuses applied). */
function listItem(r: Rec): Rec {
  const s = newestStatus().get(r.id)
  const full: Rec = { ...r, cumulative_status: s ? s.cumulative_status : null }
  return Object.fromEntries(LIST_KEYS.map((k) => [k, full[k] ?? null]))
}

const collator = new Intl.Collator('en')
const byName = (a: Rec, b: Rec) => collator.compare(a.name, b.name) || a.id - b.id
const all = () => qmsData().geoservices

function ids(res: ApiResponse): number[] {
  const list = Array.isArray(res.body) ? res.body : res.body.results
  return list.map((x: Rec) => x.id)
}

function expectJsonHeaders(expect: Expect, res: ApiResponse, status = 200) {
  expect(res.status).toBe(status)
  expect(res.headers['content-type']).toBe('application/json')
  expect(res.headers.allow).toBe('GET, HEAD, OPTIONS')
  expect(res.headers.vary).toBe('Accept')
}

/** Boxes of each polygon part of a data geometry (the data set's regions are boxes). */
function parts(wkt: string | null): number[][] {
  if (!wkt) return []
  return [...wkt.matchAll(/\(\(([^()]*)\)\)/g)].map((m) => {
    const nums = m[1]!.split(/[ ,]+/).filter(Boolean).map(Number)
    const xs = nums.filter((_, i) => i % 2 === 0), ys = nums.filter((_, i) => i % 2 === 1)
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]
  })
}
const overlaps = (a: number[], b: number[]) => a[0]! <= b[2]! && b[0]! <= a[2]! && a[1]! <= b[3]! && b[1]! <= a[3]!
const boxWkt = ([x0, y0, x1, y1]: number[]) => `POLYGON((${x0} ${y0}, ${x1} ${y0}, ${x1} ${y1}, ${x0} ${y1}, ${x0} ${y0}))`

/** Width and height from a PNG read as text: the IHDR bytes survive UTF-8 decoding below 128. */
function pngDims(res: ApiResponse): [number, number] {
  const i = res.text.indexOf('IHDR')
  const n = (k: number) => [0, 1, 2, 3].reduce((v, j) => v * 256 + res.text.charCodeAt(i + 4 + k * 4 + j), 0)
  return [n(0), n(1)]
}

const ROOT_KEYS = ['geoservices_url', 'geoservices_type_filter_url', 'geoservices_epsg_filter_url', 'geoservices_status_filter_url',
  'geoservices_search_url', 'geoservices_intersects_extent_url', 'geoservices_intersects_boundary_url', 'geoservices_ordering_url',
  'geoservices_pagination_url', 'geoservice_detail_url', 'geoservice_status_url', 'geoservice_status_detail_url',
  'geoservice_status_service_filter_url', 'geoservice_status_cumulative_status_filter_url', 'geoservice_status_check_at_ordering_url',
  'icons_url', 'icons_search_url', 'icons_pagination_url', 'icon_detail_url', 'icon_content_url', 'icon_resized_content_url', 'default_icon_url']

export const catalogueCases: ApiCase[] = [
  {
    name: 'catalogue: root object lists the 22 URL templates in order, byte for byte, from the host the client used',
    async run(api, expect) {
      const res = await G(api, '/api/v1/', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'qms.example.org' })
      expectJsonHeaders(expect, res)
      expect(Object.keys(res.body)).toEqual(ROOT_KEYS)
      const B = 'https://qms.example.org/api/v1'
      expect(res.body.geoservices_ordering_url).toBe(`${B}/geoservices/?ordering={name|-name|id|-id|created_at|-created_at|updated_at|-updated_at`)
      expect(res.body.icon_resized_content_url).toBe(`${B}/icons/{id}/content?width={16<=x<=64}&height={16<=y<=64}`)
      expect(res.body.geoservices_intersects_boundary_url).toBe(`${B}/geoservices/?intersects_boundary={WKT|EWKT geometry}`)
      expect(res.body.geoservice_status_service_filter_url).toBe(`${B}/geoservice_status/?geoservice={id}`)
      expect(res.body.default_icon_url).toBe(`${B}/icons/default`)
      expect(res.text).not.toMatch(/[,:] "/)
      const plain = await G(api, '/api/v1/')
      expect(plain.body.geoservices_url).toMatch(/^https?:\/\/[^/]+\/api\/v1\/geoservices\/$/)
    },
  },
  {
    name: 'catalogue: the list without limit is a bare array of every service, list keys in order, name order, statuses applied',
    async run(api, expect) {
      await ensureQms(api)
      const res = await G(api, '/api/v1/geoservices/')
      expectJsonHeaders(expect, res)
      expect(Array.isArray(res.body)).toBe(true)
      expect(res.body).toHaveLength(192)
      const expected = [...all()].sort(byName).map(listItem)
      expect(res.body).toEqual(expected)
      for (const item of res.body) expect(Object.keys(item)).toEqual(LIST_KEYS)
      // Non-ASCII is raw UTF-8 and compact.
      expect(res.text).toContain('Öpnvkarte')
      expect(res.text.startsWith('[{"id":')).toBe(true)
      // An invalid limit switches pagination off (reference §6).
      for (const q of ['limit=0', 'limit=-3', 'limit=abc', 'limit=10.5', 'limit=', 'offset=5']) {
        const r = await G(api, `/api/v1/geoservices/?${q}`)
        expect(Array.isArray(r.body), q).toBe(true)
        expect(r.body, q).toHaveLength(192)
      }
    },
  },
  {
    name: 'catalogue: limit/offset give the envelope; next/previous repeat every parameter, sorted and form-encoded',
    async run(api, expect) {
      await ensureQms(api)
      const sorted = [...all()].sort(byName)
      const first = await G(api, '/api/v1/geoservices/?type=&limit=10')
      expectJsonHeaders(expect, first)
      expect(Object.keys(first.body)).toEqual(['count', 'next', 'previous', 'results'])
      expect(first.body.count).toBe(192)
      expect(first.body.previous).toBeNull()
      expect(ids(first)).toEqual(sorted.slice(0, 10).map((r) => r.id))
      expect(first.body.next).toMatch(/^https?:\/\/[^/]+\/api\/v1\/geoservices\/\?limit=10&offset=10&type=$/)
      const mid = await G(api, '/api/v1/geoservices/?offset=25&limit=10&search=osm map,&format=json')
      const matching = sorted.filter((r) => ['OSM', 'MAP'].every((t) => r.name.toUpperCase().includes(t) || (r.desc ?? '').toUpperCase().includes(t)))
      expect(mid.body.count).toBe(matching.length)
      expect(mid.body.next === null).toBe(35 >= matching.length)
      expect(mid.body.previous).toMatch(/\/api\/v1\/geoservices\/\?format=json&limit=10&offset=15&search=osm\+map%2C$/)
      const second = await G(api, '/api/v1/geoservices/?limit=10&offset=7&type=tms&epsg=3857')
      expect(second.body.previous).toMatch(/\/api\/v1\/geoservices\/\?epsg=3857&limit=10&type=tms$/)
      expect(second.body.next).toMatch(/\/api\/v1\/geoservices\/\?epsg=3857&limit=10&offset=17&type=tms$/)
      const tms3857 = sorted.filter((r) => r.type === 'tms' && r.epsg === 3857)
      expect(second.body.count).toBe(tms3857.length)
      expect(ids(second)).toEqual(tms3857.slice(7, 17).map((r) => r.id))
      // Following `next` to the end visits every record once.
      let url: string | null = '/api/v1/geoservices/?limit=50'
      const seen: number[] = []
      while (url) {
        const page: ApiResponse = await G(api, url.replace(/^https?:\/\/[^/]+/, ''))
        seen.push(...ids(page))
        url = page.body.next
      }
      expect(seen).toEqual(sorted.map((r) => r.id))
      const beyond = await G(api, '/api/v1/geoservices/?limit=5&offset=1000')
      expect(beyond.body).toMatchObject({ count: 192, next: null, results: [] })
      expect(beyond.body.previous).toMatch(/\?limit=5&offset=995$/)
      const badOffset = await G(api, '/api/v1/geoservices/?limit=3&offset=-4')
      expect(ids(badOffset)).toEqual(sorted.slice(0, 3).map((r) => r.id))
      expect(badOffset.body.previous).toBeNull()
    },
  },
  {
    name: 'catalogue: type, epsg and cumulative_status filters, their accepted spellings and their 400s',
    async run(api, expect) {
      await ensureQms(api)
      for (const [type, n] of [['tms', 156], ['wms', 31], ['wfs', 2], ['geojson', 3], ['TMS', 0], ['mvt', 0]] as const) {
        const r = await G(api, `/api/v1/geoservices/?type=${type}`)
        expect(r.body, type).toHaveLength(n)
        for (const x of r.body) expect(x.type).toBe(type)
      }
      for (const v of ['3857', '%203857%20', '3857.0', '3.857e3', '+3857']) {
        const r = await G(api, `/api/v1/geoservices/?epsg=${v}`)
        expect(r.body, v).toHaveLength(153)
      }
      expect((await G(api, '/api/v1/geoservices/?epsg=3857.5')).body).toEqual([])
      expect((await G(api, '/api/v1/geoservices/?epsg=4857')).body.map((x: Rec) => x.id)).toEqual(all().filter((r) => r.epsg === 4857).map((r) => r.id))
      for (const v of ['abc', 'NaN', 'Infinity', '38-57']) {
        const r = await G(api, `/api/v1/geoservices/?epsg=${v}`)
        expectJsonHeaders(expect, r, 400)
        expect(r.body).toEqual({ epsg: ['Enter a number.'] })
      }
      const newest = newestStatus()
      for (const st of ['works', 'problematic', 'failed']) {
        const r = await G(api, `/api/v1/geoservices/?cumulative_status=${st}`)
        const expected = all().filter((x) => newest.get(x.id)?.cumulative_status === st).sort(byName).map((x) => x.id)
        expect(expected.length).toBeGreaterThan(0)
        expect(ids(r), st).toEqual(expected)
      }
      const bad = await G(api, '/api/v1/geoservices/?cumulative_status=broken')
      expectJsonHeaders(expect, bad, 400)
      expect(bad.body).toEqual({ cumulative_status: ['Select a valid choice. broken is not one of the available choices.'] })
      // Blank values are ignored; the last of a repeated parameter wins.
      expect((await G(api, '/api/v1/geoservices/?epsg=&cumulative_status=&type=')).body).toHaveLength(192)
      expect((await G(api, '/api/v1/geoservices/?type=tms&type=wfs')).body).toHaveLength(2)
    },
  },
  {
    name: 'catalogue: search matches every term in name or desc, case-insensitively, Cyrillic included',
    async run(api, expect) {
      await ensureQms(api)
      const expectSearch = async (q: string, terms: string[]) => {
        const r = await G(api, `/api/v1/geoservices/?search=${encodeURIComponent(q)}`)
        const expected = all().filter((x) => terms.every((t) => x.name.toUpperCase().includes(t.toUpperCase())
          || (x.desc !== null && x.desc.toUpperCase().includes(t.toUpperCase())))).sort(byName).map((x) => x.id)
        expect(ids(r), q).toEqual(expected)
        return expected
      }
      expect((await expectSearch('osm', ['osm'])).length).toBeGreaterThan(5)
      expect((await expectSearch('OSM humanitarian', ['osm', 'humanitarian'])).length).toBeGreaterThan(0)
      expect((await expectSearch('portugal,igeo', ['portugal', 'igeo'])).length).toBeGreaterThan(0)
      expect(await expectSearch('ТЕСТ', ['тест'])).toHaveLength(1)
      expect((await expectSearch('осоциаленные', ['осоциаленные'])).length).toBe(1)
      expect(await expectSearch('100%_', ['100%_'])).toEqual([])
      const plus = await G(api, '/api/v1/geoservices/?search=osm+humanitarian')
      expect(ids(plus)).toEqual(ids(await G(api, '/api/v1/geoservices/?search=osm%20humanitarian')))
    },
  },
  {
    name: 'catalogue: intersects_extent and intersects_boundary take WKT, EWKT (reprojected) and GeoJSON; nulls never match',
    async run(api, expect) {
      await ensureQms(api)
      const expectBox = async (box: number[], field: 'extent' | 'boundary', query: string) => {
        const r = await G(api, `/api/v1/geoservices/?intersects_${field}=${encodeURIComponent(query)}`)
        expect(r.status, query).toBe(200)
        const expected = all().filter((x) => parts(x[field]).some((p) => overlaps(p, box))).sort(byName).map((x) => x.id)
        expect(ids(r), `${field} ${query}`).toEqual(expected)
        return expected
      }
      // Canada: inside Russia's extent (which spans ±180°) but outside its boundary parts.
      const canada = [-100, 50, -90, 55]
      const byExtent = await expectBox(canada, 'extent', boxWkt(canada))
      const byBoundary = await expectBox(canada, 'boundary', boxWkt(canada))
      expect(byExtent.length).toBeGreaterThan(byBoundary.length)
      expect(byExtent).toContain(643)
      expect(byBoundary).not.toContain(643)
      const lisbon = [-9.3, 38.6, -9.0, 38.8]
      const pt = await expectBox(lisbon, 'boundary', `srid=4326;${boxWkt(lisbon).toLowerCase()}`)
      expect(pt.length).toBeGreaterThan(10)
      // A point, and the same box in EPSG:3857 (reprojected to 4326 before the test).
      await expectBox([-9.1, 38.7, -9.1, 38.7], 'boundary', 'POINT (-9.1 38.7)')
      const merc = (lon: number, lat: number) => [lon * 20037508.342789244 / 180,
        Math.log(Math.tan((90 + lat) * Math.PI / 360)) * 6378137]
      const [mx0, my0] = merc(lisbon[0]!, lisbon[1]!), [mx1, my1] = merc(lisbon[2]!, lisbon[3]!)
      await expectBox(lisbon, 'boundary', `SRID=3857;${boxWkt([mx0!, my0!, mx1!, my1!])}`)
      await expectBox(lisbon, 'extent', JSON.stringify({ type: 'Polygon', coordinates: [[[-9.3, 38.6], [-9, 38.6], [-9, 38.8], [-9.3, 38.8], [-9.3, 38.6]]] }))
      // An unencoded `;` is part of the value: the query is split on `&` only.
      const raw = await G(api, `/api/v1/geoservices/?intersects_boundary=SRID=4326;POINT(-9.1%2038.7)`)
      expect(ids(raw)).toEqual(ids(await G(api, '/api/v1/geoservices/?intersects_boundary=POINT(-9.1%2038.7)')))
      // Any EPSG code of the index: the same point in ETRS89 / LAEA Europe.
      const laea = await G(api, `/api/v1/geoservices/?intersects_boundary=${encodeURIComponent('SRID=3035;POINT(2668283.44 1943501.02)')}`)
      expect(laea.status).toBe(200)
      expect(ids(laea)).toEqual(ids(raw))
      expect(ids(raw).length).toBeGreaterThan(0)
      // Nowhere: the middle of the Pacific matches nothing (global services have no boundary).
      expect((await G(api, `/api/v1/geoservices/?intersects_extent=${encodeURIComponent('POINT(-150 -40)')}`)).body).toEqual([])
      for (const [name, value] of [['intersects_extent', 'POLYGON((1 2, 3'], ['intersects_boundary', 'not a geometry'],
        ['intersects_extent', 'SRID=99999;POINT(1 2)'], ['intersects_boundary', '{"type":"Blob"}']]) {
        const r = await G(api, `/api/v1/geoservices/?${name}=${encodeURIComponent(value!)}`)
        expectJsonHeaders(expect, r, 400)
        expect(Object.keys(r.body)).toEqual([name])
        expect(typeof r.body[name!][0]).toBe('string')
      }
    },
  },
  {
    name: 'catalogue: ordering by each field and direction, several keys, invalid terms dropped',
    async run(api, expect) {
      await ensureQms(api)
      const t = (s: string) => { const m = Date.parse(s) * 1000; const f = /\.(\d+)/.exec(s)?.[1] ?? ''; return m + Number(f.padEnd(6, '0').slice(3)) }
      const cmp: Record<string, (a: Rec, b: Rec) => number> = {
        name: (a, b) => collator.compare(a.name, b.name), id: (a, b) => a.id - b.id,
        created_at: (a, b) => t(a.created_at) - t(b.created_at), updated_at: (a, b) => t(a.updated_at) - t(b.updated_at),
      }
      for (const f of Object.keys(cmp)) {
        for (const desc of [false, true]) {
          const r = await G(api, `/api/v1/geoservices/?ordering=${desc ? '-' : ''}${f}`)
          const expected = [...all()].sort((a, b) => (desc ? -1 : 1) * cmp[f]!(a, b) || a.id - b.id).map((x) => x.id)
          expect(ids(r), `${desc ? '-' : ''}${f}`).toEqual(expected)
        }
      }
      const multi = await G(api, '/api/v1/geoservices/?ordering=-updated_at,name')
      expect(ids(multi)).toEqual([...all()].sort((a, b) => -cmp.updated_at!(a, b) || cmp.name!(a, b) || a.id - b.id).map((x) => x.id))
      const dropped = await G(api, '/api/v1/geoservices/?ordering=bogus,-id')
      expect(ids(dropped)).toEqual([...all()].sort((a, b) => b.id - a.id).map((x) => x.id))
      const none = await G(api, '/api/v1/geoservices/?ordering=epsg')
      expect(ids(none)).toEqual([...all()].sort(byName).map((x) => x.id))
    },
  },
  {
    name: 'catalogue: filters combine (type, epsg, status, search, geometry, ordering, paging) and next repeats them',
    async run(api, expect) {
      await ensureQms(api)
      const newest = newestStatus()
      const box = [-10, 35, 20, 50]
      const expected = all().filter((x) => x.type === 'tms' && x.epsg === 3857 && newest.get(x.id)?.cumulative_status !== undefined
        && parts(x.extent).some((p) => overlaps(p, box))).sort((a, b) => b.id - a.id)
      const st = newest.get(expected[0]!.id)!.cumulative_status as string
      const want = expected.filter((x) => newest.get(x.id)!.cumulative_status === st)
      const q = `type=tms&epsg=3857&cumulative_status=${st}&intersects_extent=${encodeURIComponent(boxWkt(box))}&ordering=-id`
      const r = await G(api, `/api/v1/geoservices/?${q}&limit=1`)
      expect(r.body.count).toBe(want.length)
      expect(ids(r)).toEqual([want[0]!.id])
      if (want.length > 1) {
        const next = r.body.next as string
        for (const k of ['cumulative_status=', 'epsg=3857', 'intersects_extent=POLYGON%28%28-10+35%2C', 'limit=1', 'offset=1', 'ordering=-id', 'type=tms']) expect(next).toContain(k)
        const r2 = await G(api, next.replace(/^https?:\/\/[^/]+/, ''))
        expect(ids(r2)).toEqual([want[1]!.id])
      }
      const s = await G(api, '/api/v1/geoservices/?search=igeo&type=wms&ordering=-name&limit=3&offset=1')
      const igeo = all().filter((x) => x.type === 'wms' && (x.name.toUpperCase().includes('IGEO') || (x.desc ?? '').toUpperCase().includes('IGEO')))
        .sort((a, b) => -collator.compare(a.name, b.name) || a.id - b.id)
      expect(s.body.count).toBe(igeo.length)
      expect(ids(s)).toEqual(igeo.slice(1, 4).map((x) => x.id))
    },
  },
  {
    name: 'catalogue: detail has the type serializer keys in order; TMS url is one of alt_urls; unknown ids are 404',
    async run(api, expect) {
      await ensureQms(api)
      const newest = newestStatus()
      // One round trip for all the reads where the host allows it (192 in a row cost 28 s in the worker).
      const records = all()
      const answers = await requestAll(api, records.map((rec): ApiRequest => ['GET', `/api/v1/geoservices/${rec.id}/`, { auth: 'guest' }]))
      for (const [i, rec] of records.entries()) {
        const r = answers[i]!
        expectJsonHeaders(expect, r)
        expect(Object.keys(r.body), String(rec.id)).toEqual(Object.keys(rec))
        const s = newest.get(rec.id)
        const want: Rec = { ...rec, cumulative_status: s?.cumulative_status ?? null, last_status: s?.id ?? null }
        if (rec.type === 'tms' && rec.alt_urls.length) {
          expect(rec.alt_urls).toContain(r.body.url)
          want.url = r.body.url
        }
        expect(r.body, String(rec.id)).toEqual(want)
      }
      const humanitarian = all().find((x) => x.name === 'OSM Humanitarian')!
      const h = await G(api, `/api/v1/geoservices/${humanitarian.id}/`)
      expect(h.body.origin_url).toContain('tile-{switch:b,a,c}')
      expect(h.body.alt_urls[0]).toMatch(/^https?:\/\/b\.openstreetmap\.fr\//)
      for (const p of ['/api/v1/geoservices/999999/', '/api/v1/geoservices/abc/', '/api/v1/geoservices/0/']) {
        const r = await G(api, p)
        expectJsonHeaders(expect, r, 404)
        expect(r.body).toEqual({ detail: 'Not found.' })
      }
      // Without the trailing slash the client is redirected to the slashed URL (followed here).
      const unslashed = await G(api, `/api/v1/geoservices/${all()[0]!.id}`)
      expect(unslashed.status).toBe(200)
      expect(unslashed.body.id).toBe(all()[0]!.id)
    },
  },
  {
    name: 'catalogue: status records are always paged, filter by service and status, order by check_at',
    async run(api, expect) {
      await ensureQms(api)
      const statuses = qmsData().statuses
      const t = (s: Rec) => s.check_at as string
      const asc = [...statuses].sort((a, b) => t(a).localeCompare(t(b)) || a.id - b.id)
      const first = await G(api, '/api/v1/geoservice_status/')
      expectJsonHeaders(expect, first)
      expect(first.body.count).toBe(576)
      expect(first.body.results).toEqual(asc.slice(0, 100))
      for (const r of first.body.results) expect(Object.keys(r)).toEqual(Object.keys(statuses[0]!))
      expect(first.body.next).toMatch(/\/api\/v1\/geoservice_status\/\?limit=100&offset=100$/)
      expect((await G(api, '/api/v1/geoservice_status/?limit=1000')).body.results).toHaveLength(500)
      expect((await G(api, '/api/v1/geoservice_status/?limit=abc')).body.results).toHaveLength(100)
      const desc = await G(api, '/api/v1/geoservice_status/?ordering=-check_at&limit=5')
      expect(desc.body.results.map((x: Rec) => x.id)).toEqual([...asc].reverse().slice(0, 5).map((x) => x.id))
      const svc = statuses[0]!.geoservice as number
      const one = await G(api, `/api/v1/geoservice_status/?geoservice=${svc}`)
      expect(one.body.results.map((x: Rec) => x.id)).toEqual(asc.filter((x) => x.geoservice === svc).map((x) => x.id))
      const failed = await G(api, `/api/v1/geoservice_status/?cumulative_status=failed&geoservice=${svc}&ordering=-check_at`)
      expect(failed.body.results.map((x: Rec) => x.id)).toEqual(asc.filter((x) => x.geoservice === svc && x.cumulative_status === 'failed').reverse().map((x) => x.id))
      for (const q of ['geoservice=abc', 'geoservice=999999']) {
        const r = await G(api, `/api/v1/geoservice_status/?${q}`)
        expectJsonHeaders(expect, r, 400)
        expect(r.body).toEqual({ geoservice: ['Select a valid choice. That choice is not one of the available choices.'] })
      }
      const bad = await G(api, '/api/v1/geoservice_status/?cumulative_status=ok')
      expect(bad.status).toBe(400)
      expect(Object.keys(bad.body)).toEqual(['cumulative_status'])
      const detail = await G(api, `/api/v1/geoservice_status/${statuses[5]!.id}/`)
      expectJsonHeaders(expect, detail)
      expect(detail.body).toEqual(statuses[5])
      for (const p of ['/api/v1/geoservice_status/999999/', '/api/v1/geoservice_status/abc/']) {
        const r = await G(api, p)
        expect(r.status).toBe(404)
        expect(r.body).toEqual({ detail: 'Not found.' })
      }
    },
  },
  {
    name: 'catalogue: icons list, search, paging and detail',
    async run(api, expect) {
      await ensureQms(api)
      const icons = [...qmsData().icons].sort((a, b) => a.id - b.id)
      const list = await G(api, '/api/v1/icons/')
      expectJsonHeaders(expect, list)
      expect(list.body).toEqual(icons)
      for (const i of list.body) expect(Object.keys(i)).toEqual(['id', 'guid', 'name'])
      const osm = await G(api, '/api/v1/icons/?search=OSM')
      expect(osm.body).toEqual(icons.filter((i) => i.name.toUpperCase().includes('OSM')))
      const page = await G(api, '/api/v1/icons/?limit=7&offset=7&search=')
      expect(page.body.count).toBe(50)
      expect(page.body.results).toEqual(icons.slice(7, 14))
      expect(page.body.next).toMatch(/\/api\/v1\/icons\/\?limit=7&offset=14&search=$/)
      expect(page.body.previous).toMatch(/\/api\/v1\/icons\/\?limit=7&search=$/)
      const one = await G(api, `/api/v1/icons/${icons[3]!.id}/`)
      expect(one.body).toEqual(icons[3])
      const missing = await G(api, '/api/v1/icons/9999/')
      expectJsonHeaders(expect, missing, 404)
      expect(missing.body).toEqual({ detail: 'Not found.' })
    },
  },
  {
    name: 'catalogue: icon content is a PNG of exactly the asked size (16..64, else 32 per side); default icon; 404',
    async run(api, expect) {
      await ensureQms(api)
      const id = qmsData().icons[4]!.id
      const sizes: Array<[string, [number, number]]> = [['?width=24&height=24', [24, 24]], ['', [32, 32]], ['?width=100&height=20', [32, 20]],
        ['?width=64', [64, 32]], ['?width=16&height=64', [16, 64]], ['?width=abc&height=15', [32, 32]]]
      for (const [q, dims] of sizes) {
        const r = await G(api, `/api/v1/icons/${id}/content${q}`)
        expect(r.status, q).toBe(200)
        expect(r.headers['content-type']).toBe('image/png')
        expect(r.text.slice(1, 4)).toBe('PNG')
        expect(pngDims(r), q).toEqual(dims)
      }
      for (const p of ['/api/v1/icons/default?width=24&height=24', '/api/v1/icons/default/content?width=24&height=24']) {
        const r = await G(api, p)
        expect(r.headers['content-type']).toBe('image/png')
        expect(pngDims(r)).toEqual([24, 24])
      }
      expect(pngDims(await G(api, '/api/v1/icons/default'))).toEqual([32, 32])
      const missing = await G(api, '/api/v1/icons/9999/content?width=24&height=24')
      expect(missing.status).toBe(404)
      expect(missing.body).toEqual({ detail: 'Not found.' })
      expect((await G(api, `/api/v1/icons/${id}/content/`)).status).toBe(404)
      // Only PNG can be produced.
      expect((await G(api, `/api/v1/icons/${id}/content`, { accept: 'application/json' })).status).toBe(406)
    },
  },
  {
    name: 'catalogue: HEAD, OPTIONS, 405, format, Accept and CORS as the original answers them',
    async run(api, expect) {
      await ensureQms(api)
      const head = await api.request('HEAD', '/api/v1/geoservices/', { auth: 'guest' })
      expect(head.status).toBe(200)
      expect(head.text).toBe('')
      expect(head.headers['content-type']).toBe('application/json')
      const opts = await api.request('OPTIONS', '/api/v1/geoservices/', { auth: 'guest' })
      expectJsonHeaders(expect, opts)
      expect(opts.body).toEqual({ name: 'Geo Service List', description: '', renders: ['application/json', 'text/html'],
        parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] })
      const iconOpts = await api.request('OPTIONS', '/api/v1/icons/default', { auth: 'guest' })
      expect(iconOpts.body).toMatchObject({ name: 'Default Icon Retrieve', renders: ['image/png'] })
      for (const m of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const r = await api.request(m, '/api/v1/geoservices/', { auth: 'guest', raw: m === 'DELETE' ? undefined : '{}' })
        expectJsonHeaders(expect, r, 405)
        expect(r.body).toEqual({ detail: `Method "${m}" not allowed.` })
      }
      expect(Array.isArray((await G(api, '/api/v1/geoservices/?format=json&type=wfs')).body)).toBe(true)
      const fmt = await G(api, '/api/v1/geoservices/?format=xml')
      expect(fmt.status).toBe(404)
      expect(fmt.body).toEqual({ detail: 'Not found.' })
      expect((await G(api, '/api/v1/geoservices/?type=wfs', { accept: 'image/png' })).status).toBe(406)
      expect((await G(api, '/api/v1/geoservices/?type=wfs', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' })).status).toBe(200)
      // A page cannot set Origin (a forbidden header), and the worker only serves its own origin,
      // so CORS is observable on the Node host only.
      if (api.host === 'node') {
        const cors = await G(api, '/api/v1/geoservices/?type=wfs', { origin: 'https://elsewhere.example' })
        expect(cors.headers['access-control-allow-origin']).toBe('*')
        expect(cors.headers['access-control-expose-headers']).toBe('content-range, x-content-range')
      }
      const none = await G(api, '/api/v1/geoservices/?type=wfs')
      expect(none.headers['access-control-allow-origin']).toBeUndefined()
      const badAuth = await api.request('GET', '/api/v1/geoservices/?type=wfs', { auth: { login: 'nobody', password: 'wrong' } })
      expectJsonHeaders(expect, badAuth, 401)
      expect(badAuth.body).toEqual({ detail: 'Invalid username/password.' })
      expect(badAuth.headers['www-authenticate']).toBeUndefined()
      const unknown = await G(api, '/api/v1/nothing-here/')
      expect(unknown.status).toBe(404)
      expect(unknown.body).toEqual({ detail: 'Not found.' })
    },
  },
  {
    name: 'catalogue: import is admin-only and all-or-nothing; a bad import changes nothing',
    async run(api, expect) {
      await ensureQms(api)
      const url = '/api/component/outpost/catalogue/import'
      const small = { geoservices: [{ id: 1, guid: '00000000-0000-4000-8000-000000000001', name: 'Only', type: 'tms', epsg: 3857,
        url: 'https://t.example/{z}/{x}/{y}.png', created_at: '2024-01-01T00:00:00Z', updated_at: null }] }
      expectError(expect, await api.request('POST', url, { auth: 'guest', body: small }), 403, 'nextgisweb.core.exception.ForbiddenError')
      expectError(expect, await api.request('POST', url, { raw: '{"geoservices": [' }), 400, 'nextgisweb.pyramid.tomb.exception.MalformedJSONBody')
      const bad: Array<[string, unknown]> = [
        ['missing list', {}],
        ['unknown key', { ...small, extra: 1 }],
        ['bad type', { geoservices: [{ ...small.geoservices[0], type: 'mvt' }] }],
        ['duplicate id', { geoservices: [small.geoservices[0], { ...small.geoservices[0], name: 'Other' }] }],
        ['unknown icon', { geoservices: [{ ...small.geoservices[0], icon: 5 }] }],
        ['bad geometry', { geoservices: [{ ...small.geoservices[0], boundary: 'MULTIPOLYGON (((1 2' }] }],
        ['bad png', { geoservices: small.geoservices, icons: [{ id: 1, guid: 'x', name: 'x', content: btoa('not a png') }] }],
        ['bad status', { geoservices: small.geoservices, geoservice_status: [{ id: 1, check_at: '2024-01-01T00:00:00Z', cumulative_status: 'works', geoservice: 77 }] }],
        ['bad time', { geoservices: [{ ...small.geoservices[0], created_at: 'yesterday' }] }],
      ]
      for (const [what, body] of bad) {
        const r = await api.request('POST', url, { body })
        expectError(expect, r, 422, 'nextgisweb.core.exception.ValidationError')
        expect(r.body.message, what).toEqual(expect.any(String))
      }
      // Nothing changed.
      expect((await G(api, '/api/v1/geoservices/?limit=1')).body.count).toBe(192)
      const ok = await api.request('POST', url, { body: small })
      expect(ok.status).toBe(200)
      expect(ok.body).toEqual({ geoservices: 1, icons: 0, geoservice_status: 0 })
      const list = await G(api, '/api/v1/geoservices/')
      expect(list.body).toEqual([{ id: 1, guid: '00000000-0000-4000-8000-000000000001', name: 'Only', desc: null, type: 'tms', epsg: 3857,
        icon: null, submitter: null, created_at: '2024-01-01T00:00:00Z', updated_at: null, cumulative_status: null, extent: null }])
      const d = await G(api, '/api/v1/geoservices/1/')
      expect(d.body).toMatchObject({ url: 'https://t.example/{z}/{x}/{y}.png', alt_urls: [], origin_url: 'https://t.example/{z}/{x}/{y}.png',
        z_min: null, z_max: null, y_origin_top: false, last_status: null })
      expect((await api.request('GET', url)).body).toEqual({ geoservices: 1, icons: 0, geoservice_status: 0 })
      await ensureQms(api)
      expect((await G(api, '/api/v1/geoservices/?limit=1')).body.count).toBe(192)
    },
  },
]
