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
  ogr2ogr(ds: GdalDataset, args: string[], outName?: string): Promise<{ local: string; real?: string; all: unknown[] }>
  getFileBytes(path: string | { local: string }): Promise<Uint8Array>
  Module: { FS: { writeFile(path: string, data: Uint8Array): void; unlink(path: string): void; mkdir(path: string): void;
    rmdir(path: string): void; readdir(path: string): string[]; analyzePath(path: string): { exists: boolean } } }
}

export interface GdalDataset {
  pointer: number
  path: string
  type: string
  info?: Record<string, unknown>
}

/** Returns a function that starts GDAL on its first call and shares it afterwards. */
export function createGdalLoader(init: () => Promise<GdalApi>): () => Promise<GdalApi> {
  return sharedStart(init)
}
