/**
 * @module export/service
 * Exports of one layer or several (reference §8): which files a layer becomes in a format,
 * and how they are delivered — the single file itself, or a ZIP (`zipped`, the default, and
 * always for formats of several files). Everything that can fail on the input (the layers,
 * the filters, GDAL's conversion, building a GeoPackage) happens before the answer starts;
 * what streams afterwards are features already known to be readable.
 */
import type { DataOutServices } from '../feature/capability.ts'
import type { ExportFormat } from './formats.ts'
import type { ExportItem, ExportRequest } from './params.ts'
import { exportSource, type ExportSource } from './source.ts'
import { buildGpkg, gpkgLayerName } from './gpkg.ts'
import { csvText, csvtText, geojsonText, textStream } from './text.ts'
import { gdalExport, readAll } from './gdal.ts'
import { bytesStream, zipStream, type ZipEntry } from './zip.ts'

export interface ExportAnswer {
  body: ReadableStream<Uint8Array>
  mime: string
  filename: string
  /** Known for files made before the answer starts (GeoPackage, GDAL formats). */
  size?: number
}

interface LayerFile extends ZipEntry { size?: number }

const ZIP = 'application/zip'

/**
 * The files of one layer, named `<base>.<ext>` (+ sidecars). A GeoPackage or a GDAL format
 * is made here; text formats are produced while they are read.
 */
async function layerFiles(services: DataOutServices, src: ExportSource, format: ExportFormat, base: string,
  encoding: string): Promise<LayerFile[]> {
  const file = `${base}.${format.extension}`
  switch (format.writer) {
    case 'gpkg': {
      const gpkg = await buildGpkg(src, gpkgLayerName(src.displayName))
      return [{ name: file, size: gpkg.size, open: () => gpkg.stream() }]
    }
    case 'geojson':
      return [{ name: file, open: () => textStream(geojsonText(src, src.displayName)) }]
    case 'csv':
      return [{ name: file, open: () => textStream(csvText(src, format.id === 'CSV_MSEXCEL' ? ';' : ',')) },
        { name: `${base}.csvt`, open: () => bytesStream(new TextEncoder().encode(csvtText(src))) }]
    case 'gdal':
      return (await gdalExport(services.platform, src, format, base, encoding))
        .map((f) => ({ name: f.name, size: f.bytes.length, open: () => bytesStream(f.bytes) }))
    case 'kmz': {
      // A KMZ is a ZIP whose first entry is the KML document, `doc.kml`.
      const [kml] = await gdalExport(services.platform, src, { ...format, writer: 'gdal', extension: 'kml' }, base, encoding)
      const bytes = await readAll(zipStream([{ name: 'doc.kml', open: () => bytesStream(kml!.bytes) }]))
      return [{ name: file, size: bytes.length, open: () => bytesStream(bytes) }]
    }
  }
}

/** `GET /api/resource/{id}/export` (and `/geojson`, `/csv`). */
export async function exportLayer(services: DataOutServices, id: number, req: ExportRequest): Promise<ExportAnswer> {
  const src = await exportSource(services, id, req)
  const base = String(id)
  const files = await layerFiles(services, src, req.format, base, req.encoding)
  if (!req.format.singleFile || req.zipped) {
    return { body: zipStream(files), mime: ZIP, filename: `${base}.${req.format.extension}.zip` }
  }
  const main = files[0]!
  return { body: await main.open(), mime: req.format.mime, filename: main.name, size: main.size }
}

/**
 * `feature_layer.export`: every layer's files in one ZIP `layers.zip`, under the given name
 * or the resource id (formats of several files get a folder each). Layers are checked first
 * and made one after another while the archive streams.
 */
export async function exportLayers(services: DataOutServices, items: ExportItem[], req: ExportRequest): Promise<ExportAnswer> {
  const sources: [ExportItem, ExportSource][] = []
  for (const it of items) sources.push([it, await exportSource(services, it.id, req)])
  async function* entries(): AsyncGenerator<ZipEntry> {
    for (const [it, src] of sources) {
      const name = it.name ?? String(it.id)
      const files = await layerFiles(services, src, req.format, name, req.encoding)
      for (const f of files) yield req.format.singleFile ? f : { ...f, name: `${name}/${f.name}` }
    }
  }
  return { body: zipStream(entries()), mime: ZIP, filename: 'layers.zip' }
}
