/**
 * @module wasm/gdal-engine
 * The `GdalEngine` over gdal3.js on the calling thread: what the service worker uses, and
 * what the Node host's GDAL thread runs (`gdal-worker-node.ts`).
 */
import type { GdalApi, GdalEngine, GdalFs, GdalModule } from './gdal.ts'

const GDAL_OF_RASTER = 0x02
const GDAL_OF_VECTOR = 0x04

export function gdalEngine(gdal: GdalApi): GdalEngine {
  const fs = gdal.Module.FS
  return {
    async openEx(path, kind, options = []) {
      const m = gdal.Module
      m.ccall('CPLErrorReset', null, [], [])
      const list = cStrings(m, options)
      try {
        const pointer = m.ccall('GDALOpenEx', 'number', ['string', 'number', 'number', 'number', 'number'],
          [path, kind === 'vector' ? GDAL_OF_VECTOR : GDAL_OF_RASTER, 0, list.pointer, 0]) as number
        if (!pointer) return { error: String(m.ccall('CPLGetLastErrorMsg', 'string', [], [])) || 'GDAL could not open the file.' }
        return { pointer, path, type: kind }
      } finally {
        list.free()
      }
    },
    close: (ds) => gdal.close(ds),
    ogrinfo: (ds, args) => gdal.ogrinfo(ds, args),
    gdalinfo: (ds, args) => gdal.gdalinfo(ds, args),
    ogr2ogr: (ds, args, out) => gdal.ogr2ogr(ds, args, out),
    gdalwarp: (ds, args, out) => gdal.gdalwarp(ds, args, out),
    gdal_translate: (ds, args, out) => gdal.gdal_translate(ds, args, out),
    async writeFile(path, bytes) {
      makeParents(fs, path)
      // The file takes `bytes` as its contents instead of copying them.
      fs.writeFile(path, bytes, { canOwn: true })
    },
    async mkdir(path) {
      makeParents(fs, `${path}/x`)
    },
    async readFile(path) {
      return fs.readFile(path)
    },
    async readdir(path) {
      if (!fs.analyzePath(path).exists) return []
      return fs.readdir(path).filter((n) => n !== '.' && n !== '..')
    },
    async remove(path) {
      removeTree(fs, path)
    },
  }
}

function makeParents(fs: GdalFs, path: string): void {
  const parts = path.split('/').slice(1, -1)
  for (let i = 1; i <= parts.length; i++) {
    const dir = `/${parts.slice(0, i).join('/')}`
    if (!fs.analyzePath(dir).exists) fs.mkdir(dir)
  }
}

/** Removes a file, or `path` and what is in it (a zip's members stay inside /vsizip/, never here). */
function removeTree(fs: GdalFs, path: string): void {
  try { fs.unlink(path); return } catch { /* a folder, or gone */ }
  try {
    for (const n of fs.readdir(path)) if (n !== '.' && n !== '..') removeTree(fs, `${path}/${n}`)
    fs.rmdir(path)
  } catch { /* already gone */ }
}

/** A NULL-terminated `char **` of `items` in GDAL's heap (0 when empty). */
function cStrings(m: GdalModule, items: string[]): { pointer: number; free(): void } {
  if (!items.length) return { pointer: 0, free() {} }
  const ptrs = items.map((s) => {
    const n = m.lengthBytesUTF8(s) + 1
    const p = m._malloc(n)
    m.stringToUTF8(s, p, n)
    return p
  })
  const pointer = m._malloc((ptrs.length + 1) * 4)
  m.HEAPU32.set([...ptrs, 0], pointer / 4)
  return { pointer, free() { for (const p of ptrs) m._free(p); m._free(pointer) } }
}
