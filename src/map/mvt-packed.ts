/**
 * @module map/mvt-packed
 * A decoded vector tile as a few flat arrays, the form in which it crosses from the decoding
 * worker (map/mvt-worker) to the page: coordinates and ring ends in typed arrays whose buffers
 * are transferred, not copied, and one property object per feature. `pack` runs in the worker
 * over OpenLayers' `RenderFeature`s (already in map coordinates), `unpack` on the page makes
 * `RenderFeature`s again over views of the same buffers: no per-coordinate work on the page.
 */
import RenderFeature from 'ol/render/Feature.js'
import type { Type } from 'ol/render/Feature.js'

const TYPES: Type[] = ['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString']

export interface PackedTile {
  /** Every feature's flat XY coordinates, one after another. */
  coords: Float64Array
  /** Every feature's ring/line ends, as OpenLayers has them: indices into the feature's own coordinates. */
  ends: Uint32Array
  /** Per feature: index into TYPES, first coordinate, first end, number of ends. */
  index: Uint32Array
  /** Per feature: its id (NaN for none). */
  ids: Float64Array
  properties: Record<string, unknown>[]
}

/** Stride of `index`. */
const STRIDE = 4

export function pack(features: RenderFeature[]): PackedTile {
  let nCoords = 0, nEnds = 0
  for (const f of features) { nCoords += f.getFlatCoordinates().length; nEnds += f.getEnds()?.length ?? 0 }
  const coords = new Float64Array(nCoords), ends = new Uint32Array(nEnds)
  const index = new Uint32Array(features.length * STRIDE), ids = new Float64Array(features.length)
  const properties: Record<string, unknown>[] = new Array(features.length)
  let c = 0, e = 0
  features.forEach((f, i) => {
    const flat = f.getFlatCoordinates(), fe = f.getEnds() ?? []
    coords.set(flat, c)
    for (let k = 0; k < fe.length; k++) ends[e + k] = fe[k]!
    index.set([TYPES.indexOf(f.getType()), c, e, fe.length], i * STRIDE)
    const id = f.getId()
    ids[i] = typeof id === 'number' ? id : Number.NaN
    properties[i] = f.getProperties()
    c += flat.length
    e += fe.length
  })
  return { coords, ends, index, ids, properties }
}

/** The buffers to transfer with a packed tile. */
export const transferables = (t: PackedTile): ArrayBuffer[] =>
  [t.coords.buffer, t.ends.buffer, t.index.buffer, t.ids.buffer] as ArrayBuffer[]

export function unpack(t: PackedTile): RenderFeature[] {
  const n = t.ids.length
  const out: RenderFeature[] = new Array(n)
  for (let i = 0; i < n; i++) {
    const o = i * STRIDE
    const start = t.index[o + 1]!, endsAt = t.index[o + 2]!, nEnds = t.index[o + 3]!
    const stop = i + 1 < n ? t.index[o + STRIDE + 1]! : t.coords.length
    const ends: number[] = new Array(nEnds)
    for (let k = 0; k < nEnds; k++) ends[k] = t.ends[endsAt + k]!
    const id = t.ids[i]!
    // A view, not a copy: OpenLayers only reads a RenderFeature's coordinates.
    const flat = t.coords.subarray(start, stop) as unknown as number[]
    out[i] = new RenderFeature(TYPES[t.index[o]!]!, flat, ends, 2, t.properties[i]!, Number.isNaN(id) ? undefined : id)
  }
  return out
}
