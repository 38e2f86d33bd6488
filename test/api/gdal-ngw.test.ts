/**
 * GDAL's NGW driver (Debian gdal-bin, a real client of the original) reads a QGIS style of
 * the Node host as a raster: it opens the resource, then fetches `render/tile` as a 256 px
 * tile service with its 3.6 quirk (`&amp;` between the parameters). It decides by the class
 * name: an XML style opens only as the original's `mapserver_style`, i.e. on a host started
 * with `--identifiers original` (core/identifiers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Server } from 'node:http'
import { decode } from 'fast-png'
import { fromArrayBuffer } from 'geotiff'
import type { Api } from './harness.ts'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'

const GDAL = '/usr/bin/gdal_translate'
let api: Api
let server: Server
let base: string
const dir = mkdtempSync(join(tmpdir(), 'outpost-gdal-ngw-'))

beforeAll(async () => {
  ({ api, server, base } = await startNodeApi())
})
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
  rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(!existsSync(GDAL))('GDAL NGW driver', () => {
  it('reads a QGIS style as a raster through render/tile', async () => {
    const layer = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'GDAL reads' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POLYGON', fields: [] } } })
    await api.request('PATCH', `/api/resource/${layer.body.id}/feature/`, { body: [{ geom: 'POLYGON((0 0,1000000 0,1000000 1000000,0 1000000,0 0))', fields: {} }] })
    const style = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'qgis_vector_style', parent: { id: layer.body.id }, display_name: 'Q' } } })
    expect(style.status).toBe(201)
    const out = join(dir, 'style.png')
    const url = `NGW:${base}/resource/${style.body.id}`
    // GDAL keeps fetched tiles in ./gdalwmscache unless told where.
    const env = { ...process.env, GDAL_DEFAULT_WMS_CACHE_PATH: join(dir, 'cache') }
    // Guests read nothing since issue 21: GDAL logs in as the original's clients do.
    const login = ['-oo', `USERPWD=administrator:${NODE_ADMIN_PASSWORD}`]
    const { stdout } = await promisify(execFile)('gdalinfo', [...login, url], { env })
    expect(stdout).toContain('Driver: NGW/NextGIS Web')
    // The polygon fills the left half of the window; the right half is empty.
    await promisify(execFile)(GDAL, ['-q', '-of', 'PNG', '-outsize', '128', '64', '-projwin', '0', '1000000', '2000000', '0', ...login, url, out], { env })
    const png = decode(readFileSync(out))
    const at = (x: number, y: number) => Array.from(png.data.subarray((y * png.width + x) * png.channels, (y * png.width + x + 1) * png.channels))
    expect(png.channels).toBe(4)
    // The default style's colour (ColorBrewer palette, picked by the style's id) is opaque inside.
    const inside = at(32, 32)
    expect(inside[3]).toBe(255)
    expect(inside.slice(0, 3)).toEqual(await defaultColour(style.body.id))
    expect(at(100, 32)[3]).toBe(0)
  })
})

describe.skipIf(!existsSync(GDAL))('GDAL NGW driver and the original\'s class names', () => {
  const run = promisify(execFile)
  const env = { ...process.env, GDAL_DEFAULT_WMS_CACHE_PATH: join(dir, 'cache-xml') }
  const login = ['-oo', `USERPWD=administrator:${NODE_ADMIN_PASSWORD}`]
  const XML = '<map><layer><class><style><color red="230" green="20" blue="20"/></style></class></layer></map>'

  /** A polygon over the left half of the window (0…2,000,000 × 0…1,000,000 m) styled red by XML; the style's id. */
  async function xmlStyle(on: Api): Promise<number> {
    const layer = await on.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'XML reads' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POLYGON', fields: [] } } })
    await on.request('PATCH', `/api/resource/${layer.body.id}/feature/`, { body: [{ geom: 'POLYGON((0 0,1000000 0,1000000 1000000,0 1000000,0 0))', fields: {} }] })
    const style = await on.request('POST', '/api/resource/', { body: { resource: { cls: 'engine_style', parent: { id: layer.body.id }, display_name: 'X' },
      engine_style: { xml: XML } } })
    expect(style.status).toBe(201)
    return style.body.id
  }
  const translate = (url: string, out: string) =>
    run(GDAL, ['-q', '-of', 'GTiff', '-outsize', '128', '64', '-projwin', '0', '1000000', '2000000', '0', ...login, url, out], { env })

  it('with --identifiers original gdal_translate reads an XML style (mapserver_style) as a raster', async () => {
    const original = await startNodeApi({ app: { identifiers: 'original' } })
    try {
      const id = await xmlStyle(original.api)
      const out = join(dir, 'xml.tif')
      await translate(`NGW:${original.base}/resource/${id}`, out)
      const image = await (await fromArrayBuffer(new Uint8Array(readFileSync(out)).buffer)).getImage()
      expect([image.getWidth(), image.getHeight(), image.getSamplesPerPixel()]).toEqual([128, 64, 4])
      const px = await image.readRasters({ interleave: true }) as unknown as Uint8Array
      const at = (x: number, y: number) => Array.from(px.subarray((y * 128 + x) * 4, (y * 128 + x + 1) * 4))
      // Red and opaque over the polygon, transparent beside it.
      const inside = at(32, 32)
      expect(inside[3]).toBe(255)
      expect(Math.max(...inside.slice(0, 3).map((v, i) => Math.abs(v - [230, 20, 20][i]!)))).toBeLessThanOrEqual(8)
      expect(at(100, 32)[3]).toBe(0)
    } finally {
      await new Promise<void>((resolve) => original.server.close(() => resolve()))
    }
  })

  it('with the spec\'s names (the default) GDAL does not open the same style: engine_style is no class it knows', async () => {
    const id = await xmlStyle(api)
    const out = join(dir, 'spec.tif')
    // GDAL 3.6 opens no dataset from a class it does not know and says the URL is no file.
    await expect(translate(`NGW:${base}/resource/${id}`, out)).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/ERROR 4: NGW:.*No such file or directory/) })
    expect(existsSync(out)).toBe(false)
  })
})

/** The fill of the default QML, read back from the server. */
async function defaultColour(id: number): Promise<number[]> {
  const qml = (await api.request('GET', `/api/resource/${id}/qml`)).text
  return /name="color" value="(\d+),(\d+),(\d+)/.exec(qml)!.slice(1, 4).map(Number)
}
