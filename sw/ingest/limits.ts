/**
 * @module ingest/limits
 * How far an upload may expand once opened. The upload's own size is bounded by
 * `upload/limits`; these bound what it becomes: a 3 MB zip can hold 3 GiB of whitespace and
 * a 1.8 MB sparse GeoTIFF 100000×100000 pixels, each minutes of GDAL work and gigabytes of
 * its heap. Both are known before GDAL reads anything: a zip's central directory declares its
 * members' sizes, a raster's header its size and bands.
 */
import { expansionTooLarge } from './errors.ts'

export const INGEST_LIMITS = {
  /** The sum of a zip's members' uncompressed sizes: 2 GiB (4x the largest upload). */
  unzippedSize: 2 * 1024 ** 3,
  /** A raster's width × height × bands: 2^30 8-bit values (16384×16384 RGBA, 1 GiB uncompressed). */
  rasterValues: 1024 ** 3,
}

/** A 413 naming the limit when a zip's members together declare more than `unzippedSize`. */
export function checkUnzippedSize(file: string, total: number): void {
  const max = INGEST_LIMITS.unzippedSize
  if (total > max) {
    throw expansionTooLarge(file, 'unzipped_size', total, max,
      `the ZIP archive's contents take ${total} bytes uncompressed; the limit is ${max} bytes.`)
  }
}

/** A 413 naming the limit when a raster holds more than `rasterValues` values. */
export function checkRasterSize(file: string, width: number, height: number, bands: number): void {
  const max = INGEST_LIMITS.rasterValues
  const values = width * height * bands
  if (values > max) {
    throw expansionTooLarge(file, 'raster_values', values, max,
      `the raster is ${width}×${height} pixels with ${bands} band${bands === 1 ? '' : 's'} (${values} values); the limit is ${max} values (width × height × bands).`)
  }
}
