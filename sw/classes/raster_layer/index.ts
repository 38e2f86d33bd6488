/**
 * @module classes/raster_layer
 * Raster layers from GeoTIFFs (spec §2.2; reference §4.1 `raster_layer`). The file is checked,
 * reprojected and stored as a cloud-optimised GeoTIFF before the create's main write
 * (sw/ingest/raster-ingest); the resource keeps the file's key and what GDAL reported of it.
 */
import { validationError } from '../../core/error.ts'
import { expectObject } from '../../core/validate.ts'
import { adoptFiles, releaseFiles, settleFiles, type StoredFile } from '../../files/service.ts'
import { memberSrs } from '../../ingest/vector-ingest.ts'
import { prepareRaster, type PreparedRaster, type RasterMeta } from '../../ingest/raster-ingest.ts'
import type { ClassData, Prepared, ResourceClass } from '../types.ts'

type PreparedCreate = Prepared & PreparedRaster

/** The stored COG of a raster layer's `data`. */
export const rasterFile = (data: ClassData) => data.file as StoredFile

export const rasterLayer: ResourceClass = {
  identity: 'raster_layer',
  label: 'Raster layer',
  order: 65,
  scopes: ['data', 'resource'],
  interfaces: ['IBboxLayer'],
  members: ['raster_layer'],
  acceptsParent: (p) => p === 'resource_group',

  async prepare(env, members) {
    if (env.resourceId !== undefined) return undefined
    if (members.raster_layer === undefined) throw validationError('Raster layer member is required - at `$.raster_layer`')
    const m = expectObject(members.raster_layer, '$.raster_layer')
    if (m.source === undefined || m.source === null) throw validationError('Field `source` is required - at `$.raster_layer`')
    const p = await prepareRaster(env.services, m, env.progress, env.signal)
    const prepared: PreparedCreate = { ...p, settle: () => settleFiles([p.file]) }
    return prepared
  },

  create(ctx) {
    const p = ctx.prepared as PreparedCreate
    adoptFiles(ctx.db, [p.file])
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
    const d = data as unknown as RasterMeta
    return { raster_layer: { srs: { id: d.srs }, xsize: d.xsize, ysize: d.ysize, band_count: d.band_count, dtype: d.dtype,
      geo_transform: d.geo_transform, color_interpretation: d.color_interpretation, cog: true } }
  },

  remove(ctx, _id, data) {
    releaseFiles(ctx.db, [rasterFile(data)])
  },
}
