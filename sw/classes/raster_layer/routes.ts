/**
 * @module classes/raster_layer/routes
 * `raster_layer.download` (the stored GeoTIFF) and `raster_layer.cog` (the same file for
 * clients that read it by ranges: GDAL's /vsicurl/, OpenLayers' GeoTIFF source), as the
 * original's `raster_layer/api.py` serves them. Reading needs `data.read`, which everyone has.
 */
import type { Context } from 'hono'
import type { AppEnv } from '../../core/env.ts'
import type { RouteTable } from '../../core/routes.ts'
import { resourceNotFound } from '../../resource/errors.ts'
import { getRow } from '../../resource/service.ts'
import { fileResponse } from '../../files/http.ts'
import { rasterFile } from './index.ts'

const COG_TYPE = 'image/tiff; application=geotiff; profile=cloud-optimized'

async function storedFile(c: Context<AppEnv>) {
  const id = Number(c.req.param('id'))
  const row = await c.get('services').main.read((db) => getRow(db, id))
  if (!row || row.cls !== 'raster_layer') throw resourceNotFound(id)
  return { id, file: rasterFile(JSON.parse(row.data) as Record<string, unknown>) }
}

export function mountRasterLayer(routes: RouteTable): void {
  routes.add('raster_layer.cog', '/api/resource/{id}/cog', ['GET', 'HEAD'], async (c) => {
    const { file } = await storedFile(c)
    return fileResponse(c.get('platform').store, file, { type: COG_TYPE, range: c.req.header('range'), head: c.req.method === 'HEAD' })
  })

  routes.add('raster_layer.download', '/api/resource/{id}/download', 'GET', async (c) => {
    const { id, file } = await storedFile(c)
    return fileResponse(c.get('platform').store, file, { type: 'image/tiff; application=geotiff',
      disposition: `attachment; filename=${id}.tif`, range: c.req.header('range') })
  })
}
