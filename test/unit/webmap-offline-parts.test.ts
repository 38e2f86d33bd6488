import { describe, expect, it } from 'vitest'
import { tileCount, tileRanges, tileUrl } from '../../sw/sync/webmap/tiles.ts'
import { localTree } from '../../sw/sync/webmap/local-map.ts'
import { parseOfflineRequest } from '../../sw/sync/webmap/request.ts'

describe('sync/webmap/tiles', () => {
  it('covers an area with the XYZ tiles of each zoom, clamped to the grid and the Mercator latitudes', () => {
    expect(tileRanges([-180, -90, 180, 90], [0, 1])).toEqual([{ z: 0, x0: 0, x1: 0, y0: 0, y1: 0 }, { z: 1, x0: 0, x1: 1, y0: 0, y1: 1 }])
    // Berlin at z10: one tile (x 550, y 335).
    expect(tileRanges([13.40, 52.51, 13.41, 52.52], [10, 10])).toEqual([{ z: 10, x0: 550, x1: 550, y0: 335, y1: 335 }])
    expect(tileCount([-180, -90, 180, 90], [0, 2])).toBe(1 + 4 + 16)
  })

  it('fills URL templates, {-y} counted from the bottom (TMS)', () => {
    expect(tileUrl('https://t/{z}/{x}/{y}.png', 3, 2, 1)).toBe('https://t/3/2/1.png')
    expect(tileUrl('/tms/{z}/{x}/{-y}', 3, 2, 1)).toBe('/tms/3/2/6')
  })
})

describe('sync/webmap/local-map', () => {
  it('points items at the local styles, drops items without one and groups left empty', () => {
    const remote = { item_type: 'root', children: [
      { item_type: 'group', display_name: 'A', group_expanded: true, children: [
        { item_type: 'layer', display_name: 'kept', layer_style_id: 5, style_parent_id: 4, layer_adapter: 'IMAGE', layer_opacity: 0.9, layer_transparency: 10 },
        { item_type: 'layer', display_name: 'gone', layer_style_id: 6, style_parent_id: 4, layer_adapter: 'image' }] },
      { item_type: 'group', display_name: 'empty after', children: [{ item_type: 'layer', display_name: 'x', layer_style_id: 7, layer_adapter: 'tile' }] }] }
    expect(localTree(remote, new Map([[5, 50]]))).toEqual({ item_type: 'root', children: [
      { item_type: 'group', display_name: 'A', group_expanded: true, children: [
        { item_type: 'layer', display_name: 'kept', layer_style_id: 50, layer_adapter: 'image', layer_transparency: 10 }] }] })
  })
})

describe('sync/webmap/request', () => {
  it('refuses an area of more tiles than a job fetches, saying how many', () => {
    expect(() => parseOfflineRequest({ connection: { id: 1 }, webmap: { id: 2 }, bbox: [-180, -85, 180, 85], zooms: [0, 9] }))
      .toThrow(/has 349525 basemap tiles at zooms 0-9, more than 20000/)
    expect(parseOfflineRequest({ connection: { id: 1 }, webmap: { id: 2 }, bbox: [9, 49, 10, 50], zooms: [8, 12] }))
      .toEqual({ connection: 1, webmap: 2, bbox: [9, 49, 10, 50], zooms: [8, 12], parent: 0 })
  })
})
