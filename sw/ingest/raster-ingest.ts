/**
 * @module ingest/raster-ingest
 * A raster layer from a GeoTIFF (spec §2.2): 3 (RGB) or 4 (RGBA) bands of 8 bits, colour
 * interpretation set on every band, a reference system, LZW or DEFLATE compression (or none).
 * GDAL reprojects it to the layer's system and writes it as a cloud-optimised GeoTIFF (256×256
 * tiles, DEFLATE, overviews down to one tile), so tiles are later cut from a few ranges of it.
 * The result is stored as a staged file (`files/service`) that the resource adopts.
 */
import type { UploadServices } from '../upload/env.ts'
import { discardFiles, stageFile, type FileServices, type StoredFile } from '../files/service.ts'
import type { GdalDataset } from '../../wasm/gdal.ts'
import { GdalOpenError, GdalWorkspace, gdalMessages } from './gdal-workspace.ts'
import { gdalOpenFailed, sourceError } from './errors.ts'
import { memberSource, memberSrs } from './member.ts'
import { checkRasterSize } from './limits.ts'
import type { Progress } from './progress.ts'

/** What the `raster_layer` member shows (reference §4.1). */
export interface RasterMeta {
  srs: number
  xsize: number
  ysize: number
  band_count: number
  dtype: string
  geo_transform: number[]
  color_interpretation: string[]
}

export interface PreparedRaster { file: StoredFile; meta: RasterMeta; discard(): Promise<void> }

interface GdalInfo {
  driverShortName?: string
  size?: [number, number]
  geoTransform?: number[]
  coordinateSystem?: { wkt?: string }
  metadata?: { IMAGE_STRUCTURE?: { COMPRESSION?: string } }
  bands?: Array<{ band: number; type: string; colorInterpretation?: string }>
}

const COLOURS = ['Red', 'Green', 'Blue', 'Alpha']
const COMPRESSIONS = ['LZW', 'DEFLATE', 'NONE']

/** Every rule of the spec, each a 422 naming the file. */
function check(info: GdalInfo, file: string): void {
  // First: past the limit, nothing else about the raster matters, and GDAL has read only its header.
  checkRasterSize(file, info.size?.[0] ?? 0, info.size?.[1] ?? 0, info.bands?.length ?? 0)
  if (info.driverShortName !== 'GTiff') {
    throw sourceError({ file, message: `the raster is in ${info.driverShortName ?? 'an unknown'} format; only GeoTIFF is supported.` })
  }
  const bands = info.bands ?? []
  if (bands.length !== 3 && bands.length !== 4) {
    throw sourceError({ file, message: `the raster has ${bands.length} band${bands.length === 1 ? '' : 's'}; 3 (RGB) or 4 (RGBA) are required.` },
      { band_count: bands.length })
  }
  for (const b of bands) {
    if (b.type !== 'Byte') {
      throw sourceError({ file, message: `band ${b.band} is ${b.type}; only 8-bit bands (values 0 to 255) are supported.` }, { band: b.band, dtype: b.type })
    }
  }
  for (const b of bands) {
    if (!COLOURS.includes(b.colorInterpretation ?? '')) {
      throw sourceError({ file, message: `band ${b.band} has colour interpretation ${b.colorInterpretation ?? 'Undefined'}; every band must be set to Red, Green, Blue or Alpha.` },
        { band: b.band, color_interpretation: b.colorInterpretation ?? 'Undefined' })
    }
  }
  if (!info.coordinateSystem?.wkt || !info.geoTransform) {
    throw sourceError({ file, message: 'the raster has no spatial reference (projection and georeferencing); files without projection info are not supported.' })
  }
  const compression = (info.metadata?.IMAGE_STRUCTURE?.COMPRESSION ?? 'NONE').toUpperCase()
  if (!COMPRESSIONS.includes(compression)) {
    throw sourceError({ file, message: `the raster is compressed with ${compression}; only LZW and DEFLATE (or no compression) are allowed.` }, { compression })
  }
}

const sameSrs = (wkt: string, srs: number) => new RegExp(`ID\\["EPSG",${srs}\\]\\s*\\]$`).test(wkt.trim())

/**
 * Checks the GeoTIFF of `member.source` and stores it, reprojected, as a COG. Throws 422s
 * naming the file; leaves nothing behind when it throws.
 */
export async function prepareRaster(services: UploadServices & FileServices, member: Record<string, unknown>, progress: Progress,
  signal?: AbortSignal): Promise<PreparedRaster> {
  const srs = memberSrs(member, '$.raster_layer')
  const source = await memberSource(services, member, '$.raster_layer')
  const gdal = await services.platform.gdal()
  signal?.throwIfAborted()
  const file = source.name || 'upload.tif'
  const { bytes } = await source.read()
  return GdalWorkspace.run(gdal, async (ws) => {
    progress.stage('reading', null)
    const path = await ws.input(/\.tiff?$/i.test(file) ? file.replace(/[/\\\0]/g, '_') : 'source.tif', bytes)
    const src = await openRaster(ws, path, file)
    let stored: StoredFile | undefined
    try {
      const info = src.info as GdalInfo
      check(info, file)
      progress.stage('converting', null)
      const reproject = !sameSrs(info.coordinateSystem!.wkt!, srs)
      const cog = ['-of', 'COG', '-co', 'COMPRESS=DEFLATE', '-co', 'BLOCKSIZE=256', '-co', 'OVERVIEWS=AUTO',
        '-co', 'BIGTIFF=IF_SAFER', '-co', 'RESAMPLING=AVERAGE']
      let out
      try {
        out = ws.track(reproject
          ? await gdal.gdalwarp(src, ['-t_srs', `EPSG:${srs}`, '-r', 'bilinear', ...(info.bands!.length === 3 ? ['-dstalpha'] : []), ...cog], ws.outputName('cog'))
          : await gdal.gdal_translate(src, cog, ws.outputName('cog')))
      } catch (err) {
        throw sourceError({ file, message: 'GDAL could not reproject the raster to the layer\'s reference system.' }, { detail: gdalMessages(err) })
      }
      const result = await openRaster(ws, out.local, file)
      const rinfo = result.info as GdalInfo
      await gdal.close(result).catch(() => undefined)
      progress.stage('saving', null)
      stored = await stageFile(services, await ws.read(out.local))
      const meta: RasterMeta = { srs, xsize: rinfo.size![0], ysize: rinfo.size![1], band_count: rinfo.bands!.length, dtype: 'Byte',
        geo_transform: rinfo.geoTransform!, color_interpretation: rinfo.bands!.map((b) => b.colorInterpretation ?? 'Undefined') }
      const kept = stored
      return { file: kept, meta, discard: () => discardFiles(services, [kept]) }
    } catch (err) {
      if (stored) await discardFiles(services, [stored])
      throw err
    } finally {
      await gdal.close(src).catch(() => undefined)
    }
  })
}

/** Opens a raster with its `gdalinfo` summary; a vector file or unreadable bytes are 422s naming the file. */
async function openRaster(ws: GdalWorkspace, path: string, file: string): Promise<GdalDataset> {
  let ds: GdalDataset
  try {
    ds = await ws.open(path, 'raster')
  } catch (err) {
    if (!(err instanceof GdalOpenError)) throw err
    throw gdalOpenFailed(file, err.message)
  }
  try {
    ds.info = await ws.gdal.gdalinfo(ds)
  } catch (err) {
    await ws.gdal.close(ds).catch(() => undefined)
    throw gdalOpenFailed(file, gdalMessages(err))
  }
  return ds
}
