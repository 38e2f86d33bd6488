/**
 * Reads exported files with independent tools, for the export cases on both hosts (the cases
 * run in Node either way): GDAL (gdal3.js) opens any format and gives its features as
 * GeoJSON, GDAL's `validate_gpkg.py` (Debian `python3-gdal`) checks GeoPackages, fflate
 * lists and reads ZIPs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFile } from 'node:child_process'
import { unzipSync } from 'fflate'
import { Worker } from 'node:worker_threads'
// @ts-expect-error plain JS helper shared with the scripts
import { GPKG_VALIDATOR } from '../../scripts/gpkg-validator.mjs'

export interface GdalFeature { id?: number; properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown } | null }
export interface GdalLayer {
  name: string
  srs: string | undefined
  fields: { name: string; type: string }[]
  features: GdalFeature[]
  /** GDAL's GeoJSON text of the layer (exact digits of big integers). */
  raw: string
}

let worker: Worker | undefined
let serial = 0
const waiting = new Map<number, { resolve: (l: GdalLayer[]) => void; reject: (e: Error) => void }>()

function gdalWorker(): Worker {
  if (worker) return worker
  worker = new Worker(new URL('./gdal-reader.worker.mjs', import.meta.url))
  worker.unref()
  worker.on('message', (m: { id: number; layers?: GdalLayer[]; error?: string }) => {
    const w = waiting.get(m.id)
    waiting.delete(m.id)
    if (m.error !== undefined) w?.reject(new Error(m.error))
    else w?.resolve(m.layers!)
  })
  return worker
}

/**
 * Opens `bytes` (a file named `name`; a `.zip` is read through `/vsizip/`) with GDAL and
 * returns each layer with its fields, SRS and features (fids kept as `id`). GDAL runs in a
 * worker thread: see `gdal-reader.worker.mjs`.
 */
export function readWithGdal(bytes: Uint8Array, name: string): Promise<GdalLayer[]> {
  const id = ++serial
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject })
    gdalWorker().postMessage({ id, bytes, name })
  })
}

/**
 * The one warning of `validate_gpkg.py` an export is allowed: a DATETIME value without a zone.
 * Field values are naive datetimes, and GDAL (so the original's export too) writes those
 * without `Z`; the validator wants the zone the spec asks for (docs/data-out.md).
 */
const NAIVE_DATETIME = /^In column .+, text \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} found which is not a valid DATETIME$/

/**
 * Runs GDAL's `validate_gpkg.py` (with its extra checks; every warning but a naive DATETIME
 * is an error) on a GeoPackage's bytes; asynchronously, so the host under test keeps answering.
 */
export async function validateGpkg(bytes: Uint8Array): Promise<{ status: number | null; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-gpkg-'))
  try {
    const file = join(dir, 'export.gpkg')
    writeFileSync(file, bytes)
    return await new Promise((resolve, reject) => {
      execFile('python3', [GPKG_VALIDATOR, '--extra', file], (err, stdout, stderr) => {
        const status = err ? (typeof err.code === 'number' ? err.code : null) : 0
        const lines = `${stdout}${stderr}`.split('\n').map((l) => l.trim()).filter((l) => l && !NAIVE_DATETIME.test(l))
        if (err && status === null) reject(err)
        // Warnings leave the status 0: any other warning is a failure.
        else resolve({ status: status === 0 && lines.length ? 1 : status, output: lines.join('\n') })
      })
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The entries of a ZIP by name. */
export function unzip(bytes: Uint8Array): Record<string, Uint8Array> {
  return unzipSync(bytes)
}

/** The UTF-8 flag (general purpose bit 11) of each central-directory entry, by position. */
export function zipUtf8Flags(bytes: Uint8Array): boolean[] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out: boolean[] = []
  for (let i = 0; i + 46 <= bytes.length; i++) {
    if (v.getUint32(i, true) !== 0x02014b50) continue
    out.push((v.getUint16(i + 8, true) & 0x800) !== 0)
    i += 45 + v.getUint16(i + 28, true) + v.getUint16(i + 30, true) + v.getUint16(i + 32, true)
  }
  return out
}
