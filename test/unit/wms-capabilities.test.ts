import { describe, expect, it } from 'vitest'
import { CapabilitiesError, parseCapabilities } from '../../sw/ogc/client/capabilities.ts'
import { getMapUrl } from '../../sw/ogc/client/getmap.ts'
import { withParams } from '../../sw/ogc/client/request.ts'
import { loadProjection } from '../../sw/geo/srs.ts'
import { isNorthingFirst } from '../../sw/geo/northing-first.ts'
import { nodeEpsg } from '../../sw/host/node-epsg.ts'

const doc = (layers: string, root = 'WMT_MS_Capabilities version="1.1.1"') =>
  `<?xml version="1.0"?><${root}><Capability><Request><GetMap><Format>image/png</Format></GetMap></Request>${layers}</Capability></${root.split(' ')[0]}>`

/** The error `parseCapabilities` throws for `xml`. */
function refusal(xml: string): CapabilitiesError {
  try {
    parseCapabilities(xml)
  } catch (err) {
    if (err instanceof CapabilitiesError) return err
    throw err
  }
  throw new Error('parsed')
}

describe('ogc/client/capabilities', () => {
  it('lists leaf layers only; unnamed children take the parent\'s name, title and box; boxes come from the nearest ancestor', () => {
    const caps = parseCapabilities(doc(`<Layer><Title>All</Title><LatLonBoundingBox minx="-1" miny="-2" maxx="3" maxy="4"/>
      <Layer><Name>a</Name></Layer>
      <Layer><Name>g</Name><Title>G</Title><Layer><Title>child</Title></Layer><Layer><Name>b</Name><BoundingBox SRS="EPSG:4326" minx="0" miny="0" maxx="1" maxy="1"/></Layer></Layer>
      <Layer><Title>no name anywhere</Title></Layer></Layer>`))
    expect(caps.layers).toEqual([
      { id: 'a', title: 'All', bbox: [-1, -2, 3, 4] },
      { id: 'g', title: 'child', bbox: [-1, -2, 3, 4] },
      { id: 'b', title: 'G', bbox: [0, 0, 1, 1] },
    ])
    expect(caps.formats).toEqual(['image/png'])
  })

  it.each([
    ['an entity declaration', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><WMT_MS_Capabilities version="1.1.1"/>', 'malformed', /DOCTYPE/],
    ['another version', doc('', 'WMT_MS_Capabilities version="1.0.0"'), 'malformed', /1\.0\.0/],
    ['an HTML page', '<html><body>x</body></html>', 'malformed', /HTML/],
    ['XML that does not parse', '<WMT_MS_Capabilities version="1.1.1"><Capability>', 'malformed', /does not parse/],
    ['a document longer than 4 MiB', doc(`<Layer><Title>${'x'.repeat(5 * 1024 * 1024)}</Title></Layer>`), 'malformed', /longer than/],
    ['an exception report', '<ServiceExceptionReport><ServiceException code="InvalidFormat">bad</ServiceException></ServiceExceptionReport>', 'exception', /bad/],
  ])('refuses %s', (_what, xml, kind, message) => {
    const err = refusal(xml)
    expect(err.kind).toBe(kind)
    expect(err.message).toMatch(message)
  })

  it('follows at most 64 nested layers; XML nested past the parser\'s limit is refused, not a stack overflow', () => {
    const nested = (depth: number) => doc('<Layer><Name>n</Name>'.repeat(depth) + '</Layer>'.repeat(depth))
    expect(parseCapabilities(nested(90)).layers).toEqual([{ id: 'n', title: null, bbox: null }])
    expect(refusal(nested(100_000)).kind).toBe('malformed')
  })
})

describe('ogc/client GetMap URLs', () => {
  it('keep the service URL\'s own query, replace its WMS parameters whatever their case, and encode spaces as %20', () => {
    expect(withParams('https://h.example/wms?map=a b&SERVICE=WFS', [['service', 'WMS'], ['layers', 'x y,z']]))
      .toBe('https://h.example/wms?map=a%20b&service=WMS&layers=x%20y,z')
  })

  it('send 1.3.0 geographic boxes latitude first, and let vendor parameters override all but what is asked', () => {
    const conn = { id: 1, url: 'https://h.example/wms', version: '1.3.0' as const, username: null, password: null }
    const url = new URL(getMapUrl(conn, { wmslayers: 'a', imgformat: 'image/png', remoteSrs: 4326, vendorParams: { FORMAT: 'image/jpeg', CRS: 'EPSG:1', Version: '9' } },
      [10, 20, 30, 40], 256, 128))
    expect(Object.fromEntries(url.searchParams)).toEqual({ layers: 'a', styles: '', FORMAT: 'image/jpeg', bbox: '20,10,40,30', width: '256', height: '128',
      transparent: 'true', crs: 'EPSG:4326', service: 'WMS', request: 'GetMap', version: '1.3.0' })
  })

  it('send 1.3.0 boxes of a northing-first projected system (EPSG:3035) northing first, and of an easting-first one as they are', async () => {
    const conn = { id: 1, url: 'https://h.example/wms', version: '1.3.0' as const, username: null, password: null }
    for (const code of [3035, 32631]) expect(await loadProjection(code, nodeEpsg)).toBeDefined()
    const bbox = (remoteSrs: number, version: '1.1.1' | '1.3.0' = '1.3.0') => new URL(getMapUrl({ ...conn, version },
      { wmslayers: 'a', imgformat: 'image/png', remoteSrs, vendorParams: {} }, [10, 20, 30, 40], 256, 128)).searchParams.get('bbox')
    expect([bbox(3035), bbox(3035, '1.1.1'), bbox(32631), bbox(3857)]).toEqual(['20,10,40,30', '10,20,30,40', '10,20,30,40', '10,20,30,40'])
    // From the EPSG dataset's own axes: Gauss-Krüger and SWEREF99 TM are northing first; UTM, RD New and LV95 are not.
    expect([31466, 3006, 2193, 3035].map(isNorthingFirst)).toEqual([true, true, true, true])
    expect([32631, 28992, 2056, 3857, 3413, 4326].map(isNorthingFirst)).toEqual([false, false, false, false, false, false])
  })
})
