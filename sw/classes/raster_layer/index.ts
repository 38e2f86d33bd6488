/**
 * @module classes/raster_layer
 * Raster layers from GeoTIFFs (spec §2.2; reference §4.1 `raster_layer`). The file is checked,
 * reprojected and stored as a cloud-optimised GeoTIFF before the create's main write
 * (`ingest/raster-ingest`); the resource keeps the stored file's key and what GDAL reported
 * of it. It provides its file to the files component (`/download`, `/cog`) and its extent.
 */
import { validationError } from '../../core/error.ts'
import { expectObject } from '../../core/validate.ts'
import type { Bbox } from '../../geo/geometry.ts'
import { settleFiles } from '../../files/service.ts'
import { adoptFiles, releaseFiles } from '../../files/in-write.ts'
import type { StoredFile } from '../../files/types.ts'
import { memberSrs } from '../../ingest/member.ts'
import { prepareRaster, type PreparedRaster, type RasterMeta } from '../../ingest/raster-ingest.ts'
import type { ClassData, ClassFactory, Prepared } from '../types.ts'

type PreparedCreate = Prepared & PreparedRaster
type RasterData = RasterMeta & { file: StoredFile }

const CLASS = 'raster_layer'

/** The corners of the image in its reference system, from its geotransform. */
function bboxOf(d: RasterData): Bbox {
  const [x0, dx, rx, y0, ry, dy] = d.geo_transform as [number, number, number, number, number, number]
  const xs = [x0, x0 + d.xsize * dx, x0 + d.ysize * rx, x0 + d.xsize * dx + d.ysize * rx]
  const ys = [y0, y0 + d.xsize * ry, y0 + d.ysize * dy, y0 + d.xsize * ry + d.ysize * dy]
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]
}

export const rasterLayer: ClassFactory = (env) => ({
  identity: CLASS,
  label: 'Raster layer',
  order: 65,
  category: 'layers_and_styles',
  scopes: ['data', 'resource'],
  interfaces: ['IBboxLayer'],
  members: ['raster_layer'],
  acceptsParent: (p) => p === 'resource_group',

  async prepare(penv, members) {
    if (penv.resourceId !== undefined) return undefined
    if (members.raster_layer === undefined) throw validationError('Raster layer member is required - at `$.raster_layer`')
    const m = expectObject(members.raster_layer, '$.raster_layer')
    if (m.source === undefined || m.source === null) throw validationError('Field `source` is required - at `$.raster_layer`')
    const p = await prepareRaster(env, m, penv.progress, penv.signal)
    const prepared: PreparedCreate = { ...p, settle: () => settleFiles([p.file]) }
    return prepared
  },

  async create(ctx) {
    const p = ctx.prepared as PreparedCreate
    await adoptFiles(ctx.tx, [p.file])
    return { ...p.meta, file: p.file }
  },

  update(_ctx, _id, members, data) {
    if (members.raster_layer === undefined) return data
    const m = expectObject(members.raster_layer, '$.raster_layer')
    if (m.srs !== undefined && memberSrs(m, '$.raster_layer') !== data.srs) {
      throw validationError('The reference system of an existing raster layer cannot be changed - at `$.raster_layer.srs`')
    }
    if (m.source !== undefined) throw validationError('The data of an existing raster layer cannot be replaced; create a new layer - at `$.raster_layer.source`')
    return data
  },

  serialize(_ctx, _id, data) {
    const d = data as unknown as RasterData
    return { raster_layer: { srs: { id: d.srs }, xsize: d.xsize, ysize: d.ysize, band_count: d.band_count, dtype: d.dtype,
      geo_transform: d.geo_transform, color_interpretation: d.color_interpretation, cog: true } }
  },

  remove: (ctx, _id, data: ClassData) => releaseFiles(env, ctx.tx, [(data as unknown as RasterData).file]),

  capabilities: {
    rasterFile: { rasterFile: async (ref) => (ref.data as unknown as RasterData).file },
    bboxLayer: { async extent(ref) {
      const d = ref.data as unknown as RasterData
      return { bbox: bboxOf(d), srs: d.srs }
    } },
  },
})
