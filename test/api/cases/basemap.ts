/**
 * The bundled offline world basemap (issue 10 §5): described, and served as vector tiles from
 * the shipped PMTiles archive, with land, country borders and country names.
 */
import type { ApiCase } from '../harness.ts'
import { expectError } from '../harness.ts'
import { bytesOf, decodeTile } from '../mvt-decode.ts'

export const basemapCases: ApiCase[] = [
  {
    name: 'the world basemap: Natural Earth attribution, land, borders and country names; open sea is 204',
    async run(api, expect) {
      const meta = await api.request('GET', '/api/component/outpost/basemap', { auth: 'guest' })
      expect(meta.status).toBe(200)
      expect(meta.body).toMatchObject({ attribution: 'Made with Natural Earth (public domain)', min_zoom: 0, max_zoom: 5,
        tiles: '/api/component/outpost/basemap/{z}/{x}/{y}' })
      // z2 tile 2/1 holds Russia, Kazakhstan, India…
      const res = await api.request('GET', '/api/component/outpost/basemap/2/2/1', { auth: 'guest' })
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/vnd.mapbox-vector-tile')
      const tile = decodeTile(bytesOf(res.bodyBase64))
      expect(Object.keys(tile).sort()).toEqual(['boundaries', 'land', 'places'])
      expect(tile.land!.features[0]!.type).toBe(3)
      expect(tile.boundaries!.features[0]!.type).toBe(2)
      expect(tile.places!.features.map((f) => f.properties.name)).toEqual(expect.arrayContaining(['Russia', 'Kazakhstan', 'India']))
      // Mid-Pacific at z5: no land, no border, no name.
      const sea = await api.request('GET', '/api/component/outpost/basemap/5/3/12', { auth: 'guest' })
      expect(sea.status).toBe(204)
      // Beyond the archive's zooms the map zooms the z5 tiles in (204 here).
      expect((await api.request('GET', '/api/component/outpost/basemap/9/300/200')).status).toBe(204)
      expectError(expect, await api.request('GET', '/api/component/outpost/basemap/2/4/0'), 422, 'nextgisweb.core.exception.ValidationError')
    },
  },
]
