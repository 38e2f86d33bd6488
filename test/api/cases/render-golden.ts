/**
 * Golden images: one tile per style feature, compared with the committed PNG in
 * test/golden/render/ within `GOLDEN_TOLERANCE` on both hosts (the same PNGs serve the Node
 * host and the service worker, so these cases also show both draw the same pixels).
 * `UPDATE_GOLDEN=1 npx vitest run test/api/node-host.test.ts -t golden` rewrites them.
 */
import type { Api, ApiCase, Expect } from '../harness.ts'
import { at, expectGolden, makeLayer, makeStyle, square, T, tile } from '../render-helpers.ts'
import { fixture, qmlStyle, seedPolygons } from './render-qml.ts'

const FIELDS = [{ keyname: 'kind', datatype: 'STRING' }, { keyname: 'num', datatype: 'INTEGER' }, { keyname: 'name', datatype: 'STRING' }]
const pt = (i: number, j: number) => { const [x, y] = at(i, j); return `POINT(${x} ${y})` }
const line = (...ij: number[]) => {
  const pts: string[] = []
  for (let k = 0; k < ij.length; k += 2) { const [x, y] = at(ij[k]!, ij[k + 1]!); pts.push(`${x} ${y}`) }
  return `LINESTRING(${pts.join(',')})`
}

async function points(api: Api, expect: Expect) {
  const kinds = ['circle', 'square', 'triangle', 'star', 'cross', 'arrow']
  return makeLayer(api, expect, 'POINT', FIELDS, kinds.flatMap((kind, k) => [0, 1, 2].map((r) => ({
    geom: pt(30 + k * 38, 40 + r * 80), fields: { kind, num: r, name: `${kind} ${r}` } }))))
}

async function lines(api: Api, expect: Expect) {
  return makeLayer(api, expect, 'LINESTRING', FIELDS, [
    { geom: line(10, 30, 120, 30, 240, 90), fields: { kind: 'road', num: 1, name: 'Main road' } },
    { geom: line(20, 120, 230, 120), fields: { kind: 'path', num: 2, name: 'Path' } },
    { geom: line(30, 230, 128, 160, 230, 230), fields: { kind: 'river', num: 3, name: 'River' } },
  ])
}

const MS_POLYGONS = `<map><layer><classitem>kind</classitem><labelitem>name</labelitem>
  <class><name>A</name><expression>"a"</expression>
    <style><color red="255" green="170" blue="127"/><outlinecolor red="106" green="106" blue="106"/><width>3</width></style>
    <label><size>14</size><color red="0" green="0" blue="0"/><outlinecolor red="255" green="255" blue="255"/><outlinewidth>2</outlinewidth></label></class>
  <class><name>Big</name><expression>([num] ge 5 and "[name]" != "X")</expression>
    <style><color red="20" green="120" blue="230"/></style>
    <style><outlinecolor red="0" green="0" blue="0"/><width>1</width></style></class>
  <class><name>Hatched</name>
    <style><symbol>std:hatch</symbol><color red="200" green="0" blue="0"/><size>6</size><angle>45</angle><width>1.5</width></style>
    <style><outlinecolor red="200" green="0" blue="0"/></style></class>
</layer></map>`

const MS_LINES = `<map><layer><classitem>kind</classitem><labelitem>name</labelitem>
  <class><expression>"road"</expression>
    <style><color red="250" green="200" blue="60"/><outlinecolor red="120" green="80" blue="0"/><width>6</width><outlinewidth>1.5</outlinewidth><linecap>round</linecap></style>
    <label><size>11</size><color red="60" green="30" blue="0"/><outlinecolor red="255" green="255" blue="255"/><outlinewidth>2</outlinewidth><position>uc</position></label></class>
  <class><expression>"path"</expression>
    <style><color red="60" green="60" blue="60"/><width>2</width><pattern>8 4</pattern><linecap>butt</linecap></style></class>
  <class><expression>/riv/</expression>
    <style><color red="40" green="110" blue="220"/><width>4</width><linejoin>miter</linejoin><opacity>60</opacity></style></class>
</layer></map>`

const MS_POINTS = `<map>
  <symbol><name>circle</name><type>ellipse</type><points>1 1</points><filled>true</filled></symbol>
  <symbol><name>flag</name><type>vector</type><points>0 0 0 4 3 3 0 2</points><filled>true</filled></symbol>
  <layer><classitem>kind</classitem>
    <class><expression>"circle"</expression><style><symbol>circle</symbol><size>14</size><color red="230" green="40" blue="40"/><outlinecolor red="0" green="0" blue="0"/></style></class>
    <class><expression>"square"</expression><style><symbol>std:square</symbol><size>12</size><color red="40" green="160" blue="40"/><outlinecolor red="0" green="60" blue="0"/><width>2</width></style></class>
    <class><expression>"triangle"</expression><style><symbol>std:triangle</symbol><size>16</size><color red="240" green="200" blue="0"/><outlinecolor red="0" green="0" blue="0"/></style></class>
    <class><expression>"star"</expression><style><symbol>std:star</symbol><size>18</size><color red="150" green="50" blue="200"/><angle>20</angle></style></class>
    <class><expression>"cross"</expression><style><symbol>std:cross</symbol><size>14</size><color red="0" green="0" blue="0"/><width>2</width></style></class>
    <class><expression>{arrow}</expression><style><symbol>flag</symbol><size>16</size><color red="0" green="120" blue="200"/></style></class>
  </layer></map>`

const MS_LABELS = `<map><layer><labelitem>name</labelitem>
  <class><style><symbol>std:circle</symbol><size>6</size><color red="0" green="0" blue="0"/></style>
    <label><size>12</size><color red="20" green="20" blue="120"/><outlinecolor red="255" green="255" blue="160"/><outlinewidth>3</outlinewidth><position>ur</position><offset x="3" y="-3"/></label></class>
</layer></map>`

const MS_OPACITY = `<map><layer><opacity>70</opacity>
  <class><expression>([num] lt 5)</expression><style><color red="255" green="0" blue="0"/><opacity>50</opacity></style></class>
  <class><style><color red="0" green="0" blue="255"/><outlinecolor red="0" green="0" blue="0"/><width>2</width></style></class>
</layer></map>`

async function overlapping(api: Api, expect: Expect) {
  const sq = (i0: number, j0: number, i1: number, j1: number) => {
    const [x0, y1] = at(i0, j0), [x1, y0] = at(i1, j1)
    return square(x0, y0, x1, y1)
  }
  return makeLayer(api, expect, 'POLYGON', FIELDS, [
    { geom: sq(40, 40, 160, 160), fields: { kind: 'x', num: 9, name: 'under' } },
    { geom: sq(100, 100, 220, 220), fields: { kind: 'y', num: 1, name: 'over' } },
  ])
}

/** Crowded labels: the grid keeps the first and drops those that would overlap it. */
async function crowded(api: Api, expect: Expect) {
  const feats = []
  for (let k = 0; k < 12; k++) feats.push({ geom: pt(20 + (k % 4) * 60, 40 + Math.floor(k / 4) * 70 + (k % 2) * 8), fields: { kind: 'p', num: k, name: `Place ${k}` } })
  feats.push({ geom: pt(24, 44), fields: { kind: 'p', num: 99, name: 'Hidden' } })
  return makeLayer(api, expect, 'POINT', FIELDS, feats)
}

const golden = (name: string, make: (api: Api, expect: Expect) => Promise<number | number[]>): ApiCase => ({
  name: `golden image: ${name}`,
  async run(api, expect) {
    const style = await make(api, expect)
    expectGolden(expect, api, await tile(api, expect, style, T.z, T.x, T.y), name)
  },
})

export const renderGoldenCases: ApiCase[] = [
  golden('engine.polygon.classes-outline-hatch-label', async (api, expect) => {
    const layer = await seedPolygons(api, expect)
    return makeStyle(api, expect, layer, MS_POLYGONS)
  }),
  golden('engine.line.width-dash-casing-opacity-label', async (api, expect) => makeStyle(api, expect, await lines(api, expect), MS_LINES)),
  golden('engine.point.symbols-sizes', async (api, expect) => makeStyle(api, expect, await points(api, expect), MS_POINTS)),
  golden('engine.point.labels-halo-collision', async (api, expect) => makeStyle(api, expect, await crowded(api, expect), MS_LABELS)),
  golden('engine.polygon.opacity', async (api, expect) => makeStyle(api, expect, await overlapping(api, expect), MS_OPACITY)),
  golden('qml.categorized-labels', async (api, expect) => (await qmlStyle(api, expect, await seedPolygons(api, expect), fixture('categorized.qml'))).body.id),
  golden('qml.graduated', async (api, expect) => (await qmlStyle(api, expect, await seedPolygons(api, expect), fixture('graduated.qml'))).body.id),
  golden('qml.rule-based', async (api, expect) => (await qmlStyle(api, expect, await seedPolygons(api, expect), fixture('rules.qml'))).body.id),
  golden('qml.markers-lines-composited', async (api, expect) => {
    const pts = await points(api, expect)
    const a = (await qmlStyle(api, expect, pts, fixture('markers.qml'))).body.id
    const b = (await qmlStyle(api, expect, await lines(api, expect), fixture('lines.qml'))).body.id
    // Two styles composited: the lines under the points.
    return [b, a]
  }),
]
