/**
 * Raster layers from GeoTIFFs (spec §2.2), their `/download` and `/cog` (with ranges), and
 * raster styles.
 */
import type { Api, ApiCase, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { TIFFS } from '../ingest-files.ts'
import { newGroup, uploadFile } from './ingest.ts'
import { sparseTiff } from '../ingest-bombs.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'

async function rasterFrom(api: Api, expect: Expect, parent: number, name: string, bytes: Uint8Array, srs = 3857) {
  const source = await uploadFile(api, expect, name, bytes)
  return api.request('POST', '/api/resource/', { body: { resource: { cls: 'raster_layer', parent: { id: parent }, display_name: uniq(name) },
    raster_layer: { srs: { id: srs }, source } } })
}

const bytesOf = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))

export const rasterCases: ApiCase[] = [
  {
    name: 'an RGB GeoTIFF in EPSG:4326 becomes a raster layer stored reprojected as a cloud-optimised GeoTIFF',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const res = await rasterFrom(api, expect, parent, 'rgb.tif', await TIFFS.rgb())
      expect(res.status).toBe(201)
      const layer = (await api.request('GET', `/api/resource/${res.body.id}`)).body
      expect(layer.resource.cls).toBe('raster_layer')
      // Reprojected with an alpha band for the area outside the warped image.
      expect(layer.raster_layer).toMatchObject({ srs: { id: 3857 }, band_count: 4, dtype: 'Byte', cog: true,
        color_interpretation: ['Red', 'Green', 'Blue', 'Alpha'] })
      expect(layer.raster_layer.xsize).toBeGreaterThan(0)
      expect(layer.raster_layer.geo_transform[0]).toBeCloseTo(3339584.72, 0)

      const dl = await api.request('GET', `/api/resource/${res.body.id}/download`)
      expect(dl.status).toBe(200)
      expect(dl.headers['content-type']).toBe('image/tiff; application=geotiff')
      expect(dl.headers['content-disposition']).toBe(`attachment; filename=${res.body.id}.tif`)
      const tiff = bytesOf(dl.bodyBase64!)
      expect([...tiff.subarray(0, 4)]).toEqual([0x49, 0x49, 0x2a, 0x00]) // little-endian TIFF
      expect(new TextDecoder().decode(tiff.subarray(0, 200))).toContain('LAYOUT=IFDS_BEFORE_DATA') // the COG layout's leading ghost header

      const head = await api.request('HEAD', `/api/resource/${res.body.id}/cog`)
      expect(head.status).toBe(200)
      expect(head.headers['accept-ranges']).toBe('bytes')
      expect(head.headers['content-length']).toBe(String(tiff.length))
      expect(head.headers['content-type']).toBe('image/tiff; application=geotiff; profile=cloud-optimized')
      const part = await api.request('GET', `/api/resource/${res.body.id}/cog`, { headers: { range: 'bytes=100-299' } })
      expect(part.status).toBe(206)
      expect(part.headers['content-range']).toBe(`bytes 100-299/${tiff.length}`)
      expect([...bytesOf(part.bodyBase64!)]).toEqual([...tiff.subarray(100, 300)])
      const tail = await api.request('GET', `/api/resource/${res.body.id}/cog`, { headers: { range: 'bytes=-16' } })
      expect([...bytesOf(tail.bodyBase64!)]).toEqual([...tiff.subarray(tiff.length - 16)])
      const past = await api.request('GET', `/api/resource/${res.body.id}/cog`, { headers: { range: `bytes=${tiff.length}-` } })
      expect(past.status).toBe(416)
      expect(past.headers['content-range']).toBe(`bytes */${tiff.length}`)
    },
  },
  {
    name: 'an RGBA GeoTIFF already in the layer srs keeps its four bands; a raster style lives under it',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const res = await rasterFrom(api, expect, parent, 'rgba.tif', await TIFFS.rgba3857())
      expect(res.status).toBe(201)
      const layer = (await api.request('GET', `/api/resource/${res.body.id}`)).body
      expect(layer.raster_layer).toMatchObject({ band_count: 4, xsize: 64, ysize: 64, color_interpretation: ['Red', 'Green', 'Blue', 'Alpha'] })
      const style = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'raster_style', parent: { id: res.body.id }, display_name: 'Style' } } })
      expect(style.status).toBe(201)
      expect((await api.request('GET', `/api/resource/${style.body.id}`)).body.resource).toMatchObject({ cls: 'raster_style', interfaces: ['IRenderableStyle'] })
      const misplaced = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'raster_style', parent: { id: parent }, display_name: 'Style' } } })
      expectError(expect, misplaced, 422, 'nextgisweb.resource.exception.HierarchyError')
      // Deleting the layer deletes its style and its file.
      expect((await api.request('DELETE', `/api/resource/${res.body.id}`)).status).toBe(200)
      expect((await api.request('GET', `/api/resource/${res.body.id}/download`)).status).toBe(404)
    },
  },
  {
    name: 'a one-band, 16-bit, unreferenced, uninterpreted or PackBits-compressed GeoTIFF is a 422 and creates nothing',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const cases: Array<[keyof typeof TIFFS, RegExp]> = [
        ['oneBand', /1 band; 3 \(RGB\) or 4 \(RGBA\)/],
        ['sixteenBit', /UInt16; only 8-bit/],
        ['noSrs', /no spatial reference/],
        ['noColour', /band 1 has colour interpretation Gray/],
        ['packbits', /compressed with PACKBITS/],
      ]
      for (const [kind, message] of cases) {
        const res = await rasterFrom(api, expect, parent, `${kind}.tif`, await TIFFS[kind]())
        expectError(expect, res, 422, VALIDATION)
        expect(res.body.message).toMatch(message)
        expect(res.body.data.file).toBe(`${kind}.tif`)
      }
      expect((await api.request('GET', `/api/resource/?parent=${parent}`)).body).toEqual([])
    },
  },
  {
    name: 'raster routes are in the route table; a vector layer has no /cog',
    async run(api, expect) {
      const routes = (await api.request('GET', '/api/component/pyramid/route', { auth: 'guest' })).body
      expect(routes['raster_layer.cog']).toEqual(['/api/resource/{0}/cog', 'id'])
      expect(routes['raster_layer.download']).toEqual(['/api/resource/{0}/download', 'id'])
      expectError(expect, await api.request('GET', '/api/resource/0/cog'), 404, 'nextgisweb.resource.exception.ResourceNotFound')
    },
  },
  {
    name: 'a sparse 100000×100000 GeoTIFF (1.2 MB) is a 413 naming the raster-size limit before GDAL converts it; nothing is created',
    async run(api, expect) {
      const parent = await newGroup(api, expect)
      const res = await rasterFrom(api, expect, parent, 'huge.tif', sparseTiff())
      expectError(expect, res, 413, 'nextgisweb.file_upload.api.UploadedFileTooLarge')
      expect(res.body.data).toEqual({ file: 'huge.tif', limit: 'raster_values', value: 100_000 * 100_000 * 3, max: 1024 ** 3 })
      expect(res.body.message).toMatch(/huge\.tif.*100000×100000 pixels with 3 bands/)
      // Only its header was read (converting it took 201 s before).
      expect((await api.request('GET', `/api/resource/?parent=${parent}`)).body).toEqual([])
    },
  },
]
