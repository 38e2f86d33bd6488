// The form in which the map's decoding worker hands a vector tile to the page
// (src/map/mvt-packed.ts): what OpenLayers' MVT reader made in the worker comes out on the
// page as the same features, after the buffers were transferred (structuredClone, as
// postMessage does).
import { describe, expect, it } from 'vitest'
import RenderFeature, { type Type } from 'ol/render/Feature.js'
import { pack, transferables, unpack } from '../../src/map/mvt-packed.ts'

const made: [Type, number[], number[], Record<string, unknown>, number | undefined][] = [
  ['Point', [10.5, -20.25], [2], { name: 'a', n: 1, layer: 'svc:1' }, 7],
  ['MultiPoint', [1, 2, 3, 4, 5, 6], [6], { layer: 'svc:1' }, 8],
  ['LineString', [0, 0, 100, 100, 200, 0], [6], { name: 'road', layer: 'svc:2' }, undefined],
  ['MultiLineString', [0, 0, 1, 1, 5, 5, 6, 6, 7, 7], [4, 10], { layer: 'svc:2' }, 2 ** 40],
  // A polygon with a hole, then one whose ring count OpenLayers infers from the ends.
  ['Polygon', [0, 0, 10, 0, 10, 10, 0, 10, 0, 0, 2, 2, 2, 4, 4, 4, 2, 2], [10, 18], { area: 96, layer: 'svc:3' }, 3],
]

describe('vector tiles packed for the page', () => {
  it('come out as the features that went in: types, coordinates, rings, ids and properties', () => {
    const features = made.map(([type, flat, ends, props, id]) => new RenderFeature(type, flat, ends, 2, props, id))
    const tile = pack(features)
    const buffers = transferables(tile)
    const moved = structuredClone(tile, { transfer: buffers })
    // Transferred, not copied: the worker's buffers are gone.
    expect(buffers.every((b) => b.byteLength === 0)).toBe(true)
    const back = unpack(moved)
    expect(back.map((f) => [f.getType(), [...f.getFlatCoordinates()], f.getEnds(), f.getProperties(), f.getId()]))
      .toEqual(made)
    // What the map's styles and hit detection read of a polygon works on the views.
    expect(back[4]!.getExtent()).toEqual([0, 0, 10, 10])
  })

  it('an empty tile is an empty list', () => {
    expect(unpack(structuredClone(pack([])))).toEqual([])
  })
})
