import { describe, expect, it } from 'vitest'
import { embedSnippet, embedUrl, parseWebmapLocation, webmapUrl } from '../../src/webmap/url.ts'
import { resolutionRange } from '../../src/webmap/layers.ts'

describe('webmap/url', () => {
  it('builds the app link and the embed link, view and panel included', () => {
    expect(webmapUrl(7)).toBe('./?webmap=7')
    expect(webmapUrl(7, { zoom: 9.584, lat: 10.00041, lon: 30 })).toBe('./?webmap=7&view=9.58/10.0004/30.0000')
    expect(embedUrl(7, { panel: true, view: { zoom: 2, lat: -5.5, lon: 170.25 } })).toBe('./embed.html?webmap=7&panel=1&view=2/-5.50/170.25')
  })

  it('reads back what it builds; a bad view is left out, a bad id names no map', () => {
    expect(parseWebmapLocation('?webmap=7&panel=1&view=9.58/10.0004/30.0000')).toEqual({ id: 7, panel: true, view: { zoom: 9.58, lat: 10.0004, lon: 30 } })
    expect(parseWebmapLocation('?webmap=7&view=9/91/0')).toEqual({ id: 7, panel: false, view: undefined })
    expect(parseWebmapLocation('?webmap=7&view=a/b/c')?.view).toBeUndefined()
    expect(parseWebmapLocation('?webmap=7&view=1/2')?.view).toBeUndefined()
    for (const bad of ['', '?webmap=', '?webmap=-1', '?webmap=1e3', '?webmap=7abc', `?webmap=${'9'.repeat(16)}`]) expect(parseWebmapLocation(bad)).toBeUndefined()
  })

  it('makes an iframe snippet with the absolute embed URL and the title escaped', () => {
    expect(embedSnippet('https://gis.example.org/team/', 3, { panel: true, title: 'Roads & "rivers"' })).toBe(
      '<iframe src="https://gis.example.org/team/embed.html?webmap=3&amp;panel=1" title="Roads &#38; &#34;rivers&#34;" width="800" height="500" style="border:0" allowfullscreen></iframe>')
  })
})

describe('webmap/layers resolutionRange', () => {
  it('draws a layer between its scale denominators (min the zoomed-out limit), unlimited where unset', () => {
    const r = resolutionRange({ minScaleDenom: 100000, maxScaleDenom: 5000 })
    expect(r.maxResolution).toBeCloseTo(28, 9)
    expect(r.minResolution).toBeCloseTo(1.4, 9)
    expect(resolutionRange({ minScaleDenom: null, maxScaleDenom: null })).toEqual({ minResolution: undefined, maxResolution: undefined })
  })
})
