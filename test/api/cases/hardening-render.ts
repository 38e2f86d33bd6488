/**
 * No request can freeze the server (issue 19): user-written patterns in styles, render filters,
 * feature filters and search match in linear time; symbols are bounded; an XML DOCTYPE with
 * declarations is a 422. The freeze itself (a second request answered during the first) is
 * checked on a real Node process in test/api/freeze.test.ts.
 */
import type { Api, ApiCase, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { at, isColor, makeLayer, makeStyle, pixel, square, T, tile } from '../render-helpers.ts'
import { qmlStyle } from './render-qml.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const RED = [230, 20, 20]

/** 36 `a`s and a `!`: JavaScript's RegExp takes minutes on `^(a+)+$` against it (2^36 paths). */
export const EVIL_TEXT = 'a'.repeat(36) + '!'
export const EVIL_REGEX = '^(a+)+$'
/** A LIKE whose backtracking regex is polynomial of degree 12 in the text. */
const EVIL_LIKE = '%a%a%a%a%a%a%a%a%a%a%a%a%b'
/** Well below the minutes the backtracking engine took, well above a tile's usual tens of ms on a busy machine. */
const FAST_MS = 5000

const sq = (i0: number, j0: number, i1: number, j1: number) => {
  const [x0, y1] = at(i0, j0), [x1, y0] = at(i1, j1)
  return square(x0, y0, x1, y1)
}

/** Polygon A (`aaaa`) around pixel (50, 50) and B (the evil text) around (150, 150). */
export async function evilLayer(api: Api, expect: Expect) {
  return makeLayer(api, expect, 'POLYGON', [{ keyname: 'name', datatype: 'STRING' }], [
    { geom: sq(30, 30, 70, 70), fields: { name: 'aaaa' } },
    { geom: sq(130, 130, 170, 170), fields: { name: EVIL_TEXT } },
  ])
}

/** An engine style drawing in red what `expression` (with classitem `name`) matches. */
export const regexStyle = (expression: string) => `<map><layer><classitem>name</classitem>
  <class><expression>${expression}</expression><style><color red="230" green="20" blue="20"/></style></class>
</layer></map>`

/** A tile timed: asserts it is a PNG answered within FAST_MS. */
async function fastTile(api: Api, expect: Expect, style: number, extra = '') {
  const t0 = Date.now()
  const img = await tile(api, expect, style, T.z, T.x, T.y, extra)
  expect(Date.now() - t0).toBeLessThan(FAST_MS)
  return img
}

const qmlRule = (filter: string) => `<qgis><renderer-v2 type="RuleRenderer"><rules key="root">
  <rule key="r1" filter="${filter.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')}" symbol="0" label="Hit"/>
</rules><symbols><symbol type="fill" name="0"><layer class="SimpleFill"><prop k="color" v="230,20,20,255"/>
  <prop k="outline_style" v="no"/></layer></symbol></symbols></renderer-v2></qgis>`

export const hardeningRenderCases: ApiCase[] = [
  {
    name: 'an engine style regex that backtracks (^(a+)+$ on 36 a and !) renders its tile fast and still matches',
    async run(api, expect) {
      const layer = await evilLayer(api, expect)
      const style = await makeStyle(api, expect, layer, regexStyle(`/${EVIL_REGEX}/`))
      const img = await fastTile(api, expect, style)
      expect(isColor(pixel(img, 50, 50), RED)).toBe(true)
      expect(pixel(img, 150, 150)[3]).toBe(0)
      // Case-insensitive regexes keep their meaning: /…/i matches across case.
      const ci = await makeStyle(api, expect, layer, regexStyle('/^A+!$/i'))
      const ciImg = await fastTile(api, expect, ci)
      expect(pixel(ciImg, 50, 50)[3]).toBe(0)
      expect(isColor(pixel(ciImg, 150, 150), RED)).toBe(true)
    },
  },
  {
    name: 'QML rules with ~ and ~* match in linear time; LIKE in rules and in filter[] too',
    async run(api, expect) {
      const layer = await evilLayer(api, expect)
      const evil = (await qmlStyle(api, expect, layer, qmlRule(`"name" ~ '${EVIL_REGEX}'`))).body.id
      const img = await fastTile(api, expect, evil)
      expect(isColor(pixel(img, 50, 50), RED)).toBe(true)
      expect(pixel(img, 150, 150)[3]).toBe(0)
      const ci = (await qmlStyle(api, expect, layer, qmlRule(`"name" ~* '^A+!$'`))).body.id
      expect(isColor(pixel(await fastTile(api, expect, ci), 150, 150), RED)).toBe(true)
      const like = (await qmlStyle(api, expect, layer, qmlRule(`"name" LIKE '${EVIL_LIKE}' OR "name" ILIKE 'AAAA'`))).body.id
      const likeImg = await fastTile(api, expect, like)
      expect(isColor(pixel(likeImg, 50, 50), RED)).toBe(true)
      expect(pixel(likeImg, 150, 150)[3]).toBe(0)
      // The original's JSON filter on a render request: the evil LIKE matches nothing, ilike still ignores case.
      const plain = await makeStyle(api, expect, layer, regexStyle('/a/'))
      const f = (json: unknown) => `&filter[${plain}]=${encodeURIComponent(JSON.stringify(json))}`
      const none = await fastTile(api, expect, plain, f(['like', ['get', 'name'], EVIL_LIKE]))
      expect(pixel(none, 50, 50)[3]).toBe(0)
      expect(pixel(none, 150, 150)[3]).toBe(0)
      const onlyB = await fastTile(api, expect, plain, f(['ilike', ['get', 'name'], '%A!']))
      expect(pixel(onlyB, 50, 50)[3]).toBe(0)
      expect(isColor(pixel(onlyB, 150, 150), RED)).toBe(true)
    },
  },
  {
    name: 'patterns the linear engine cannot run (backreference, lookaround) or too long are 422s at save time, naming the place',
    async run(api, expect) {
      const layer = await evilLayer(api, expect)
      const post = (xml: string) => api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'engine_style', parent: { id: layer }, display_name: uniq('Bad regex') }, engine_style: { xml } } })
      for (const expression of ['/(a)\\1/', '/a(?=b)/', `/${'a'.repeat(1001)}/`, '([name] ~ "(?&lt;=a)b")']) {
        const res = await post(regexStyle(expression))
        expectError(expect, res, 422, VALIDATION)
        expect(res.body.message).toContain('/map/layer/class[1]/expression')
        expect(res.body.message).toMatch(/regular expression|longer than 1000/)
      }
      const back = await post(regexStyle('/(a)\\1/'))
      expect(back.body.message).toContain('backreferences and lookaround are not supported')
      const qml = await qmlStyle(api, expect, layer, qmlRule(`"name" ~ '(?!a)'`), 422)
      expectError(expect, qml, 422, VALIDATION)
      expect(qml.body.message).toContain('/qgis/renderer-v2/rules/rule')
      const longLike = await qmlStyle(api, expect, layer, qmlRule(`"name" LIKE '${'%'.repeat(1001)}'`), 422)
      expect(longLike.body.message).toContain('longer than 1000')
      const plain = await makeStyle(api, expect, layer, regexStyle('/a/'))
      const filter = await api.request('GET', `/api/component/render/tile?z=0&x=0&y=0&resource=${plain}&filter[${plain}]=${
        encodeURIComponent(JSON.stringify(['like', ['get', 'name'], '_'.repeat(1001)]))}`)
      expectError(expect, filter, 422, VALIDATION)
      expect(filter.body.message).toContain('longer than 1000')
      // Nothing was saved by the refused requests: only the one good style is under the layer.
      expect((await api.request('GET', `/api/resource/?parent=${layer}`)).body).toHaveLength(1)
    },
  },
  {
    name: 'feature filters and resource search with an evil LIKE answer fast (SQLite LIKE and GLOB)',
    async run(api, expect) {
      const long = 'a'.repeat(20000)
      const layer = await makeLayer(api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }],
        [{ geom: 'POINT(0 0)', fields: { name: long } }, { geom: 'POINT(1 1)', fields: { name: 'a'.repeat(12) + 'b' } }])
      const timed = async (path: string) => {
        const t0 = Date.now()
        const res = await api.request('GET', path)
        expect(res.status, res.text.slice(0, 200)).toBe(200)
        expect(Date.now() - t0).toBeLessThan(FAST_MS)
        return res.body
      }
      const like = encodeURIComponent(EVIL_LIKE)
      for (const op of ['like', 'ilike']) {
        const found = await timed(`/api/resource/${layer}/feature/?fld_name__${op}=${like}`)
        expect(found.map((f: { fields: { name: string } }) => f.fields.name)).toEqual(['a'.repeat(12) + 'b'])
        expect(await timed(`/api/resource/${layer}/feature/?${op}=${like}`)).toHaveLength(1)
      }
      // Ends in 'c': a random suffix ending in 'b' would match the pattern and be found.
      const name = `${uniq(long.slice(0, 5000))}c`
      expect((await api.request('PUT', `/api/resource/${layer}`, { body: { resource: { display_name: name } } })).status).toBe(200)
      expect(await timed(`/api/resource/search/?display_name__like=${like}`)).toEqual([])
      expect(await timed(`/api/resource/search/?display_name__ilike=${like}`)).toEqual([])
    },
  },
  {
    name: 'a vector symbol of 500,000 points (a 2 MB style), of 101 points, and a dash pattern of 11 numbers are 422s naming the limit',
    async run(api, expect) {
      const layer = await makeLayer(api, expect, 'POINT', [], [{ geom: `POINT(${at(50, 50).join(' ')})`, fields: {} }])
      const symbol = (points: string) => `<map><symbol><name>big</name><type>vector</type><points>${points}</points></symbol>
        <layer><class><style><symbol>big</symbol><size>10</size><color red="230" green="20" blue="20"/></style></class></layer></map>`
      const post = (xml: string) => api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'engine_style', parent: { id: layer }, display_name: uniq('Symbol') }, engine_style: { xml } } })
      // 500,000 points (2 MB of XML) are over the document limit; 101 points over the symbol's.
      const huge = await post(symbol(Array.from({ length: 500_000 }, (_, i) => `${i % 7} ${i % 5}`).join(' ')))
      expectError(expect, huge, 422, VALIDATION)
      expect(huge.body.message).toContain('longer than 1048576 characters')
      const big = await post(symbol(Array.from({ length: 101 }, (_, i) => `${i % 7} ${i % 5}`).join(' ')))
      expectError(expect, big, 422, VALIDATION)
      expect(big.body.message).toContain('/map/symbol[1]')
      expect(big.body.message).toContain('at most 200')
      const dash = await post(`<map><layer><class><style><color red="1" green="2" blue="3"/><pattern>${'1 '.repeat(11)}</pattern></style></class></layer></map>`)
      expectError(expect, dash, 422, VALIDATION)
      expect(dash.body.message).toContain('at most 10')
      // The largest allowed symbol renders.
      const ok = await makeStyle(api, expect, layer, symbol(Array.from({ length: 100 }, (_, i) => `${Math.cos(i / 16) * 5} ${Math.sin(i / 16) * 5}`).join(' ')))
      expect((await api.request('GET', `/api/component/render/tile?z=${T.z}&x=${T.x}&y=${T.y}&resource=${ok}`)).status).toBe(200)
    },
  },
  {
    name: 'XML and QML with a DOCTYPE that declares entities are the same 422, so is XML the parser cannot read; a bare DOCTYPE is read',
    async run(api, expect) {
      const layer = await evilLayer(api, expect)
      const entity = (root: string) => `<!DOCTYPE ${root} [<!ENTITY x SYSTEM "file:///etc/passwd">]>`
      const xml = await api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'engine_style', parent: { id: layer }, display_name: uniq('Entity') },
        engine_style: { xml: `${entity('map')}${regexStyle('/a/').replace('<map>', '<map><name>&x;</name>')}` } } })
      expectError(expect, xml, 422, VALIDATION)
      expect(xml.body.message).toContain('A DOCTYPE with declarations (entities) is not supported')
      const laughs = `<!DOCTYPE qgis [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>`
      for (const head of [entity('qgis'), laughs]) {
        const qml = await qmlStyle(api, expect, layer, `${head}${qmlRule('"name" = \'a\'')}`, 422)
        expectError(expect, qml, 422, VALIDATION)
        expect(qml.body.message).toContain('A DOCTYPE with declarations (entities) is not supported')
      }
      // Text the validator passes but the parser threw on (found by the fuzz run).
      const bang = await api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'engine_style', parent: { id: layer }, display_name: uniq('Bang') }, engine_style: { xml: regexStyle('([name] ~* "(?<!a)b")') } } })
      expectError(expect, bang, 422, VALIDATION)
      expect(bang.body.message).toContain('XML is not well-formed')
      await makeStyle(api, expect, layer, `<!DOCTYPE map>\n${regexStyle('/a/')}`)
      await qmlStyle(api, expect, layer, `<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n${qmlRule('"name" = \'a\'')}`)
    },
  },
]
