/**
 * Makes small tiled GeoTIFFs with overviews (COG layout, as raster layers are stored) for
 * the raster rendering tests: pixels written with geotiff.js, then GDAL's COG driver
 * (gdal3.js) tiles them and builds averaged overviews.
 */
import { writeArrayBuffer } from 'geotiff'
import { initGdalNode } from '../../wasm/gdal-node.ts'
import type { GdalApi, GdalDataset } from '../../wasm/gdal.ts'

let gdal: Promise<GdalApi> | undefined

export interface CogSpec {
  width: number
  height: number
  /** RGB or RGBA, interleaved. */
  bands: 3 | 4
  pixel(x: number, y: number): number[]
  /** Top-left corner and pixel size in `srs` units. */
  originX: number
  originY: number
  res: number
  srs: 3857 | 4326
}

export async function makeCog(spec: CogSpec): Promise<Uint8Array> {
  const values = new Uint8Array(spec.width * spec.height * spec.bands)
  for (let y = 0; y < spec.height; y++) {
    for (let x = 0; x < spec.width; x++) values.set(spec.pixel(x, y), (y * spec.width + x) * spec.bands)
  }
  const geo = spec.srs === 4326 ? { GTModelTypeGeoKey: 2, GeographicTypeGeoKey: 4326 } : { GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: 3857 }
  const tif = writeArrayBuffer(Object.assign(values, { width: spec.width, height: spec.height }) as never, {
    width: spec.width, height: spec.height, SamplesPerPixel: spec.bands, BitsPerSample: Array(spec.bands).fill(8),
    PhotometricInterpretation: 2, PlanarConfiguration: 1, ...(spec.bands === 4 ? { ExtraSamples: 2 } : {}),
    ModelPixelScale: [spec.res, spec.res, 0], ModelTiepoint: [0, 0, 0, spec.originX, spec.originY, 0],
    GTRasterTypeGeoKey: 1, ...geo,
  })
  const g = await (gdal ??= initGdalNode())
  const name = `/input/cog-${Math.random().toString(36).slice(2)}.tif`
  if (!g.Module.FS.analyzePath('/input').exists) g.Module.FS.mkdir('/input')
  g.Module.FS.writeFile(name, new Uint8Array(tif))
  const { datasets } = await g.open(name)
  const ds = datasets[0] as GdalDataset
  const translate = (g as unknown as { gdal_translate(ds: GdalDataset, args: string[], out?: string): Promise<{ local: string }> }).gdal_translate
  const out = await translate.call(g, ds, ['-of', 'COG', '-co', 'BLOCKSIZE=256', '-co', 'OVERVIEW_RESAMPLING=AVERAGE', '-co', 'COMPRESS=DEFLATE'])
  const bytes = await g.getFileBytes(out)
  await g.close(ds)
  g.Module.FS.unlink(name)
  return bytes
}
