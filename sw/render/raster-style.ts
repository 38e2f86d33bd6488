/**
 * @module render/raster-style
 * Raster styles: the parent raster layer's stored GeoTIFF drawn into the image, found
 * through the layer class's `rasterLayer` capability. Opened files are kept (a few) so a
 * map's tiles do not reopen them.
 */
import { fromCustomClient, type BaseClient, type BaseResponse } from 'geotiff'
import type { RenderServices } from './env.ts'
import { transformer } from '../geo/reproject.ts'
import type { Surface } from '../image/canvas.ts'
import type { StyledLayer } from './parent.ts'
import { rasterLevels, readRasterView, type RasterLevels } from './raster.ts'
import type { RasterSource, View } from './types.ts'
import { notRenderable } from './errors.ts'
import { readRange } from '../files/service.ts'
import { useHostInflate } from './raster-blocks.ts'

const OPEN = new Map<string, Promise<RasterLevels>>()
const KEEP = 4

/** The parent's stored GeoTIFF, through the registry's `rasterFile` capability. */
async function sourceOf(services: RenderServices, layer: StyledLayer): Promise<RasterSource> {
  const file = await services.classes.rasterFile(layer.id)
  if (!file) throw notRenderable(layer.id)
  // The file's chunks live in the data port's blob store (PostgreSQL's or S3 on a team's server), not the host's.
  const store = services.data.blobs
  return { srs: layer.srs, key: file.key, size: file.size, read: (start, end) => readRange(store, file, start, end) }
}

/**
 * geotiff reads through an HTTP-like client asking for byte ranges: this one answers them from
 * the stored file, so a tile reads the file's header, directories and the tiles it needs,
 * never the whole raster.
 */
function storeClient(source: RasterSource): BaseClient {
  return {
    url: source.key,
    async request(init?: RequestInit): Promise<BaseResponse> {
      const range = /bytes=(\d+)-(\d+)/.exec(String((init?.headers as Record<string, string> | undefined)?.Range ?? ''))
      const start = range ? Number(range[1]) : 0
      const end = Math.min(source.size, range ? Number(range[2]) + 1 : source.size)
      const bytes = await source.read(start, end)
      return {
        ok: true, status: 206,
        getHeader: (name: string) => (name.toLowerCase() === 'content-range' ? `bytes ${start}-${end - 1}/${source.size}` : undefined),
        getData: async () => bytes.slice().buffer as ArrayBuffer,
      } as unknown as BaseResponse
    },
  } as BaseClient
}

export async function openRaster(source: RasterSource): Promise<RasterLevels> {
  let p = OPEN.get(source.key)
  if (!p) {
    p = fromCustomClient(storeClient(source), { blockSize: 256 * 1024, cacheSize: 64 }).then(rasterLevels)
    OPEN.set(source.key, p)
    p.catch(() => OPEN.delete(source.key))
    for (const k of OPEN.keys()) if (OPEN.size > KEEP) OPEN.delete(k)
  }
  return p
}

export async function rasterVersion(services: RenderServices, layer: StyledLayer): Promise<string> {
  return (await sourceOf(services, layer)).key
}

/** Draws the layer's raster over `surface`; returns whether the raster reached the view. */
export async function drawRaster(services: RenderServices, surface: Surface, layer: StyledLayer, view: View,
  signal?: AbortSignal): Promise<boolean> {
  const source = await sourceOf(services, layer)
  if (services.platform.inflate) useHostInflate(services.platform.inflate)
  const levels = await openRaster(source)
  const t = source.srs === view.srs ? undefined : transformer(view.srs, source.srs)
  const rgba = await readRasterView(levels, { extent: view.extent, width: view.width, height: view.height,
    toRaster: t && ((x, y) => t([x, y]) as [number, number]) }, signal)
  if (!rgba) return false
  const tmp = services.platform.canvas(view.width, view.height)
  tmp.putRgba(rgba)
  surface.drawSurface(tmp)
  return true
}
