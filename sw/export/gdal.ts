/**
 * @module export/gdal
 * Formats that GDAL-WASM writes (Shapefile, MapInfo, KML, DXF, GPX, GML): the selection is
 * made a GeoPackage first (already in the output SRS, with the output column names), then
 * `ogr2ogr` converts it inside GDAL's in-memory file system, into a folder of its own that
 * is read back and removed.
 */
import type { Platform } from '../platform/platform.ts'
import { concatBytes } from '../core/bytes.ts'
import { operationalError, validationError } from '../core/error.ts'
import type { GdalDataset } from '../../wasm/gdal.ts'
import type { ExportFormat } from './formats.ts'
import { buildGpkg, gpkgLayerName } from './gpkg.ts'
import type { ExportSource } from './source.ts'

export interface OutputFile { name: string; bytes: Uint8Array }

let serial = 0

/** Reads a stream to its end. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return concatBytes(chunks)
    chunks.push(value)
  }
}

/**
 * The files GDAL writes for `src` in `format`, named `<base>.<ext>` (and the format's
 * sidecars). `encoding` goes to the formats that take one.
 */
export async function gdalExport(platform: Platform, src: ExportSource, format: ExportFormat, base: string,
  encoding: string): Promise<OutputFile[]> {
  const layerName = gpkgLayerName(src.displayName)
  const gpkg = await buildGpkg(src, layerName)
  const input = await readAll(gpkg.stream())
  const gdal = await platform.gdal()
  const n = ++serial
  const inPath = `/input/outpost-export-${n}.gpkg`
  const outDir = `outpost-export-${n}`
  // GDAL-WASM has no threads: ogr2ogr's Arrow path (a reader thread for GeoPackage) fails.
  const args = ['--config', 'OGR2OGR_USE_ARROW_API', 'NO', '-f', format.driver!, '-nln', format.singleFile ? layerName : base]
  for (const o of format.dsco ?? []) args.push('-dsco', o)
  for (const o of format.lco ?? []) args.push('-lco', o)
  // MapInfo has no UTF-8 charset in this GDAL: its files keep GDAL's default unless asked.
  if (format.encodingLco && !(format.driver === 'MapInfo File' && /^utf-?8$/i.test(encoding))) {
    args.push('-lco', `${format.encodingLco}=${encoding}`)
  }
  if (format.driver === 'GML') args.push('-dsco', 'XSISCHEMA=EXTERNAL')
  let ds: GdalDataset | undefined
  try {
    await gdal.writeFile(inPath, input)
    await gdal.mkdir(`/output/${outDir}`)
    const opened = await gdal.openEx(inPath, 'vector')
    if ('error' in opened) throw operationalError('GDAL could not read the GeoPackage made for the export.')
    ds = opened
    try {
      await gdal.ogr2ogr(ds, args, `${outDir}/${base}`)
    } catch (err) {
      throw validationError(`GDAL could not write ${format.id}: ${(err as { message?: string }).message ?? String(err)}`)
    }
    const files: OutputFile[] = []
    for (const f of await gdal.readdir(`/output/${outDir}`)) files.push({ name: f, bytes: await gdal.readFile(`/output/${outDir}/${f}`) })
    return files.sort((a, b) => a.name.localeCompare(b.name))
  } finally {
    if (ds) await gdal.close(ds)
    await gdal.remove(inPath)
    await gdal.remove(`/output/${outDir}`)
  }
}
