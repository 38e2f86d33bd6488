/**
 * @module wasm/gdal
 * The part of gdal3.js the backend uses, and a lazy, shared loader around a host's init.
 * Hosts provide the init: `gdal-node.ts` (Node) and `gdal-browser.ts` (service worker).
 */
import { sharedStart } from '../sw/core/once.ts'

/** The subset of gdal3.js's API the backend calls. */
export interface GdalApi {
  open(files: string | string[], openOptions?: string[], vfsHandlers?: string[]): Promise<{ datasets: GdalDataset[]; errors: unknown[] }>
  close(ds: GdalDataset): Promise<void>
  getInfo(ds: GdalDataset): Promise<Record<string, unknown>>
  /** `ogrinfo -json` of a vector dataset (layers, fields, geometry fields with their SRS). */
  ogrinfo(ds: GdalDataset, args?: string[]): Promise<Record<string, unknown>>
  ogr2ogr(ds: GdalDataset, args: string[], outName?: string): Promise<GdalOutput>
  /** `gdalinfo -json` of a raster dataset (bands with types and colour interpretation, SRS, metadata). */
  gdalinfo(ds: GdalDataset, args?: string[]): Promise<Record<string, unknown>>
  gdalwarp(ds: GdalDataset, args: string[], outName?: string): Promise<GdalOutput>
  gdal_translate(ds: GdalDataset, args: string[], outName?: string): Promise<GdalOutput>
  gdal_rasterize(ds: GdalDataset, args: string[], outName?: string): Promise<GdalOutput>
  getFileBytes(path: string | { local: string }): Promise<Uint8Array>
  Module: GdalModule
}

/** Emscripten's module: the file system and calls into GDAL's exported C functions. */
export interface GdalModule {
  FS: GdalFs
  ccall(name: string, returns: 'number' | 'string' | null, args: Array<'number' | 'string'>, values: Array<number | string>): number | string
  _malloc(n: number): number
  _free(p: number): void
  lengthBytesUTF8(s: string): number
  stringToUTF8(s: string, p: number, max: number): void
  HEAPU32: Uint32Array
}

/** Where a gdal3.js application wrote its result (always under `/output/`). */
export interface GdalOutput { local: string; real?: string; all: Array<{ local: string }> }

/** The part of Emscripten's file system the backend uses. */
export interface GdalFs {
  /** With `canOwn`, the file takes `data` as its contents instead of copying it. */
  writeFile(path: string, data: Uint8Array, opts?: { canOwn?: boolean }): void
  readFile(path: string): Uint8Array
  unlink(path: string): void
  mkdir(path: string): void
  rmdir(path: string): void
  readdir(path: string): string[]
  analyzePath(path: string): { exists: boolean }
  /** A memory file's node: its bytes are `contents.subarray(0, usedBytes)`. */
  lookupPath(path: string): { node: { contents: Uint8Array | null; usedBytes: number } }
}

export interface GdalDataset {
  pointer: number
  path: string
  type: string
  info?: Record<string, unknown>
}

/** How often GDAL was started in this worker's (or process's) life, and how long the last start took. */
export interface GdalStarts { starts: number; started: boolean; start_ms: number | null }
const STARTS: GdalStarts = { starts: 0, started: false, start_ms: null }

/** A copy of the start counts (the diagnostics answer them: one start per worker life is the goal). */
export const gdalStarts = (): GdalStarts => ({ ...STARTS })

/** Returns a function that starts GDAL on its first call and shares it afterwards. */
export function createGdalLoader<T = GdalEngine>(init: () => Promise<T>): () => Promise<T> {
  return sharedStart(async () => {
    STARTS.starts++
    const t0 = performance.now()
    const gdal = await init()
    STARTS.started = true
    STARTS.start_ms = Math.round(performance.now() - t0)
    return gdal
  })
}

/**
 * GDAL as the backend uses it: every call asynchronous, bytes in and out by value. One
 * implementation runs gdal3.js on the calling thread (`gdal-engine.ts`: the service worker,
 * which has no `Worker`); the Node host's runs it in a worker thread (`gdal-thread-node.ts`), so
 * a long conversion never holds the thread that answers requests.
 */
export interface GdalEngine {
  /** `GDALOpenEx` of a vector or raster dataset; GDAL's message when it cannot open it. */
  openEx(path: string, kind: 'vector' | 'raster', options?: string[]): Promise<GdalDataset | { error: string }>
  close(ds: GdalDataset): Promise<void>
  /** `ogrinfo -json` of a vector dataset (layers, fields, geometry fields with their SRS). */
  ogrinfo(ds: GdalDataset, args?: string[]): Promise<Record<string, unknown>>
  /** `gdalinfo -json` of a raster dataset (bands with types and colour interpretation, SRS, metadata). */
  gdalinfo(ds: GdalDataset, args?: string[]): Promise<Record<string, unknown>>
  ogr2ogr(ds: GdalDataset, args: string[], outName?: string): Promise<GdalOutput>
  gdalwarp(ds: GdalDataset, args: string[], outName?: string): Promise<GdalOutput>
  gdal_translate(ds: GdalDataset, args: string[], outName?: string): Promise<GdalOutput>
  /**
   * Writes a file of GDAL's memory file system (parent folders made). The engine may take
   * `bytes` (the thread engine transfers their buffer): the caller must not use them after.
   */
  writeFile(path: string, bytes: Uint8Array): Promise<void>
  /** Makes a folder and its parents. */
  mkdir(path: string): Promise<void>
  /** A copy of a file's bytes. */
  readFile(path: string): Promise<Uint8Array>
  /** The names in a folder (without `.` and `..`); none when it does not exist. */
  readdir(path: string): Promise<string[]>
  /** Removes a file or a folder with everything in it; nothing when it does not exist. */
  remove(path: string): Promise<void>
}
