/**
 * Helpers for the render cases: layers with features, styles, tiles decoded to pixels, and
 * golden images compared within a stated tolerance (`UPDATE_GOLDEN=1` rewrites them).
 */
import { decode, encode } from 'fast-png'
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Api, ApiResponse, Expect } from './harness.ts'
import { uniq } from './harness.ts'

export interface Image { width: number; height: number; data: Uint8Array }

export function decodePng(res: ApiResponse): Image {
  return pngToImage(Buffer.from(res.bodyBase64!, 'base64'))
}

/** A PNG's pixels as RGBA whatever its channels. */
export function pngToImage(bytes: Uint8Array): Image {
  const png = decode(bytes)
  const data = png.data as Uint8Array
  if (png.channels === 4) return { width: png.width, height: png.height, data }
  // Keep RGBA everywhere so comparisons index alike.
  const out = new Uint8Array(png.width * png.height * 4)
  for (let i = 0, j = 0; i < out.length; i += 4, j += png.channels) {
    out[i] = data[j]!; out[i + 1] = data[j + (png.channels >= 3 ? 1 : 0)]!; out[i + 2] = data[j + (png.channels >= 3 ? 2 : 0)]!
    out[i + 3] = png.channels === 2 || png.channels === 4 ? data[j + png.channels - 1]! : 255
  }
  return { width: png.width, height: png.height, data: out }
}

export function pixel(img: Image, x: number, y: number): [number, number, number, number] {
  const o = (y * img.width + x) * 4
  return [img.data[o]!, img.data[o + 1]!, img.data[o + 2]!, img.data[o + 3]!]
}

/** Whether a pixel is `rgb` (alpha 255) within `tol` per channel. */
export function isColor(p: number[], rgb: number[], tol = 8): boolean {
  return p[3]! > 240 && rgb.every((v, i) => Math.abs(p[i]! - v) <= tol)
}

export async function makeLayer(api: Api, expect: Expect, geometryType: string, fields: unknown[], features: { geom: string; fields: Record<string, unknown> }[], srs = 3857) {
  const res = await api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: uniq('Render') },
    vector_layer: { srs: { id: srs }, geometry_type: geometryType, fields } } })
  expect(res.status).toBe(201)
  const layer = res.body.id as number
  if (features.length) {
    const r = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: features })
    expect(r.status).toBe(200)
  }
  return layer
}

export async function makeStyle(api: Api, expect: Expect, layer: number, xml?: string, cls = 'engine_style') {
  const res = await api.request('POST', '/api/resource/', { body: {
    resource: { cls, parent: { id: layer }, display_name: uniq('Style') },
    ...(xml === undefined ? {} : { [cls]: { xml } }) } })
  expect(res.status).toBe(201)
  return res.body.id as number
}

export async function tile(api: Api, expect: Expect, ids: number[] | number, z: number, x: number, y: number, extra = '') {
  const res = await api.request('GET', `/api/component/render/tile?z=${z}&x=${x}&y=${y}&resource=${[ids].flat().join(',')}${extra}`)
  expect(res.status).toBe(200)
  expect(res.headers['content-type']).toBe('image/png')
  return decodePng(res)
}

/** Square polygon WKT with corners in EPSG:3857 metres. */
export const square = (x0: number, y0: number, x1: number, y1: number) =>
  `POLYGON((${x0} ${y0},${x1} ${y0},${x1} ${y1},${x0} ${y1},${x0} ${y0}))`

/**
 * Tile z=4 x=8 y=7 covers x and y from 0 to 2504688.54 m: a pixel is 9783.94 m, pixel (i, j)
 * has its centre at x = (i + .5) · 9783.94, y = 2504688.54 − (j + .5) · 9783.94.
 */
export const T = { z: 4, x: 8, y: 7, px: 2504688.542848654 / 256 }
export const at = (i: number, j: number) => [(i + 0.5) * T.px, 2504688.542848654 - (j + 0.5) * T.px] as const

export interface Tolerance {
  /** A pixel differs when one of its channels differs by more than this. */
  channel: number
  /** The share of differing pixels allowed. */
  share: number
}

/** Chromium and Skia-in-Node differ slightly in glyph rasterising: up to 1.3% of a labelled tile (docs/rendering.md). */
export const GOLDEN_TOLERANCE: Tolerance = { channel: 40, share: 0.025 }

/** Pixel differences on premultiplied colour: a transparent pixel is the same whatever RGB it stores. */
export function compareImages(a: Image, b: Image, tol: Tolerance): { share: number; meanAbs: number } {
  if (a.width !== b.width || a.height !== b.height) return { share: 1, meanAbs: 255 }
  let over = 0, sum = 0
  for (let i = 0; i < a.data.length; i += 4) {
    const aa = a.data[i + 3]!, ba = b.data[i + 3]!
    let worst = Math.abs(aa - ba)
    sum += worst
    for (let k = 0; k < 3; k++) {
      const d = Math.abs((a.data[i + k]! * aa - b.data[i + k]! * ba) / 255)
      sum += d
      if (d > worst) worst = d
    }
    if (worst > tol.channel) over++
  }
  return { share: over / (a.data.length / 4), meanAbs: sum / a.data.length }
}

const GOLDEN_DIR = join(dirname(new URL(import.meta.url).pathname), '..', 'golden', 'render')

/** Compares `img` with `test/golden/render/<name>.png`; `UPDATE_GOLDEN=1` writes it instead (from the Node host). */
export function expectGolden(expect: Expect, api: Api, img: Image, name: string, tol = GOLDEN_TOLERANCE): void {
  const file = join(GOLDEN_DIR, `${name}.png`)
  if (process.env.UPDATE_GOLDEN && api.host === 'node') {
    mkdirSync(GOLDEN_DIR, { recursive: true })
    writeFileSync(file, encode({ width: img.width, height: img.height, data: img.data, channels: 4, depth: 8 }))
    return
  }
  expect(existsSync(file), `golden image ${name}.png exists (run with UPDATE_GOLDEN=1)`).toBe(true)
  const png = decode(readFileSync(file))
  const golden = { width: png.width, height: png.height, data: png.data as Uint8Array }
  const diff = compareImages(img, golden, tol)
  // GOLDEN_REPORT=<file> collects the measured agreement (docs/rendering.md quotes it).
  if (process.env.GOLDEN_REPORT) appendFileSync(process.env.GOLDEN_REPORT, JSON.stringify({ host: api.host, name, ...diff }) + '\n')
  expect(diff.share, `${name}: ${(diff.share * 100).toFixed(2)}% of pixels differ by more than ${tol.channel} (mean ${diff.meanAbs.toFixed(2)}) on ${api.host}`)
    .toBeLessThanOrEqual(tol.share)
}
