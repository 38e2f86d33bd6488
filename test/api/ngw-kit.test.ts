/**
 * NextGIS's web-map client, `@nextgis/ngw-kit` 1.19.6 (its Node build, the newest on npm), with
 * `@nextgis/ngw-connector`, against the Node host: its web-map adapter reads our web map, its
 * extent, items and basemaps (reference ngw-services §6.1), and the image URL it builds for a
 * layer answers a PNG. No map is drawn here: the adapter is given a stand-in for the `WebMap`
 * it would draw into (drawing in Chromium is a later step of issue 25). And the MVT adapter options
 * it builds for a layer: the tile of its URL holds the MVT layer it draws only when the host answers
 * in the original's names (`--identifiers original`, issue 24).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import { createRequire } from 'node:module'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import type { Api } from './harness.ts'
import { bytesOf, decodeTile } from './mvt-decode.ts'

const require = createRequire(import.meta.url)
const NgwConnector = require('@nextgis/ngw-connector') as new (o: unknown) => { getResource(id: number): Promise<Record<string, any>> }
// reason: the kit's types come from its own bundle; the test reads what it returns
const kit = require('@nextgis/ngw-kit') as Record<string, any>

describe('@nextgis/ngw-kit against the Node host', () => {
  let server: Server
  let base: string
  let api: Api
  beforeAll(async () => { ({ server, base, api } = await startNodeApi()) })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('the web-map adapter reads our web map: extent from the extent_* scalars, items with image URLs that answer, basemaps', async () => {
    const post = async (body: unknown) => {
      const res = await api.request('POST', '/api/resource/', { body })
      expect(res.status).toBe(201)
      return res.body.id as number
    }
    const layer = await post({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'Kit points' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [] } })
    const style = await post({ resource: { cls: 'engine_style', parent: { id: layer }, display_name: 'Kit style' } })
    const basemap = await post({ resource: { cls: 'basemap_layer', parent: { id: 0 }, display_name: 'Kit OSM' },
      basemap_layer: { outpost_catalogue: { id: 1 } } })
    const webmap = await post({ resource: { cls: 'webmap', parent: { id: 0 }, display_name: 'Kit map' },
      webmap: { initial_extent: [10, -85, 30, 85], draw_order_enabled: false, root_item: { item_type: 'root', children: [
        { item_type: 'group', display_name: 'Group', children: [
          { item_type: 'layer', display_name: 'Points', layer_style_id: style, layer_adapter: 'image', layer_enabled: true, layer_transparency: 25 }] }] } },
      basemap_webmap: { basemaps: [{ resource_id: basemap, display_name: 'OSM', enabled: true, opacity: 0.8 }] } })

    const connector = new NgwConnector({ baseUrl: base, auth: { login: 'administrator', password: NODE_ADMIN_PASSWORD } })
    const item = await connector.getResource(webmap)
    // ngw-kit 1.19.6 reads only the scalars, clamping latitudes to ±82.
    expect(await kit.fetchNgwResourceExtent(item, connector)).toEqual([10, -82, 30, 82])

    const baseLayers: Array<{ name: string; opacity: number | null; visibility: boolean }> = []
    const webMap = {
      getLayerAdapters: () => ({ IMAGE: true, TILE: true }),
      getActiveBaseLayer: () => undefined,
      addBaseLayer: async (_adapter: unknown, o: { id: string; name: string; opacity: number | null; visibility: boolean }) => {
        baseLayers.push({ name: o.name, opacity: o.opacity, visibility: o.visibility })
        return { id: o.id }
      },
    }
    const adapter = new kit.NgwWebmapLayerAdapter({}, { resourceId: webmap, connector, webMap })
    const config = await adapter.getWebMapConfig(webmap)
    expect(adapter.getBounds()).toEqual([10, -82, 30, 82])
    // The root takes the resource's name; each layer gets the image adapter's URL and its style as the resource.
    expect(config.root_item.display_name).toBe('Kit map')
    const points = config.root_item.children[0].children[0]
    expect(points).toMatchObject({ item_type: 'layer', layer_style_id: style, style_parent_id: layer, layer_transparency: 25,
      resourceId: style, url: `${base}/api/component/render/image`, params: { resource: style, nd: 200 } })
    // The request its image source then sends: the map adapter's bbox and size, turned into ours by the kit.
    const wms = points.updateWmsParams({ bbox: '-20037508,-20037508,20037508,20037508', width: 64, height: 64, nd: 200 })
    const query = new URLSearchParams(Object.entries(wms).map(([k, v]) => [k, String(v)]))
    expect([...query.keys()]).toEqual(['resource', 'extent', 'size', 'timestamp', 'nd'])
    const image = await api.request('GET', `/api/component/render/image?${query}`)
    expect([image.status, image.headers['content-type']]).toEqual([200, 'image/png'])
    // Basemaps are added once their adapters are made (asynchronously).
    await expect.poll(() => baseLayers.length).toBe(1)
    expect(baseLayers).toEqual([{ name: 'OSM', opacity: 0.8, visibility: true }])
  })
})

describe('@nextgis/ngw-kit\'s vector-tile layer against the Node host', () => {
  /** A host answering in `identifiers`' names, a point layer with one feature in tile 10/512/511, and the tile ngw-kit asks for. */
  async function kitTile(identifiers: 'original' | 'spec') {
    const { server, base, api } = await startNodeApi({ app: { identifiers } })
    try {
      const made = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'Kit tiles' },
        vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } } })
      expect(made.status).toBe(201)
      const layer = made.body.id as number
      expect((await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1000 1000)', fields: { name: 'a' } } })).status).toBe(200)
      // The options ngw-kit gives a map's MVT adapter for the layer: its URL template and the MVT layer it draws.
      const options = kit.ngwApiToAdapterOptions({ options: { resource: layer, adapter: 'MVT' }, baseUrl: base }) as { url: string; sourceLayer: string }
      const url = options.url.replace('{x}', '512').replace('{y}', '511').replace('{z}', '10')
      expect(url.startsWith(base)).toBe(true)
      const res = await api.request('GET', url.slice(base.length))
      expect(res.status).toBe(200)
      return { tile: decodeTile(bytesOf(res.bodyBase64)), sourceLayer: options.sourceLayer, layer }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }

  it('with --identifiers original, the tile of the URL the kit builds holds the layer the kit draws (ngw:<id>), with the feature', async () => {
    const { tile, sourceLayer, layer } = await kitTile('original')
    expect(sourceLayer).toBe(`ngw:${layer}`)
    expect(tile[sourceLayer]?.features.map((f) => f.properties)).toEqual([{ name: 'a' }])
  })

  it('in the spec\'s names the kit finds no layer of its name in our tile (why the setting exists)', async () => {
    const { tile, sourceLayer, layer } = await kitTile('spec')
    expect(Object.keys(tile)).toEqual([`svc:${layer}`])
    expect(tile[sourceLayer]).toBeUndefined()
  })
})
