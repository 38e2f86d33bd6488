/**
 * @module diagnostics/service
 * `inspect`: opens a file with GDAL and summarises it, the way a layer import will read it.
 * `storageUse`: what the databases hold in memory.
 * The bytes go to GDAL's in-memory file system (never `Gdal.open(File)`, which hangs in a
 * service worker) under a folder of their own, and everything is removed afterwards.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { GdalApi, GdalDataset } from '../../wasm/gdal.ts'
import type { Store } from '../store/store.ts'
import { residencyOf } from '../store/residency.ts'
import { emptyBody, gdalOpenFailed } from './errors.ts'

export interface FieldSummary { name: string; type: string }
export interface LayerSummary {
  name: string
  feature_count: number | null
  geometry_type: string | null
  fields: FieldSummary[]
  /** `AUTH:CODE` when GDAL knows the authority, else the WKT; null without a reference system. */
  srs: string | null
}
export interface InspectResult { driver: string; layers: LayerSummary[] }

let seq = 0

export async function inspect(gdal: GdalApi, name: string, bytes: Uint8Array): Promise<InspectResult> {
  if (!bytes.length) throw emptyBody()
  const FS = gdal.Module.FS
  const dir = `/input/outpost-${Date.now().toString(36)}-${(seq++).toString(36)}`
  const path = `${dir}/${name}`
  FS.mkdir(dir)
  let ds: GdalDataset | undefined
  try {
    FS.writeFile(path, bytes)
    const vfs = /\.zip$/i.test(name) ? ['vsizip'] : []
    let opened: Awaited<ReturnType<GdalApi['open']>>
    try {
      opened = await gdal.open(path, [], vfs)
    } catch (err) {
      // gdal3.js rejects with its error list ([{no, message}]) when no driver reads the file.
      throw gdalOpenFailed(name, gdalMessages(err))
    }
    ds = opened.datasets[0]
    if (!ds) throw gdalOpenFailed(name, gdalMessages(opened.errors))
    const info = (ds.type === 'vector' ? (ds.info ?? await gdal.ogrinfo(ds, ['-so'])) : ds.info ?? {}) as OgrInfo
    return { driver: info.driverShortName ?? (await gdal.getInfo(ds)).driverName as string, layers: (info.layers ?? []).map(layerSummary) }
  } finally {
    if (ds) await gdal.close(ds).catch(() => undefined)
    removeTree(FS, dir)
  }
}

interface OgrInfo {
  driverShortName?: string
  layers?: Array<{
    name: string
    featureCount?: number
    fields?: Array<{ name: string; type: string }>
    geometryFields?: Array<{ type?: string; coordinateSystem?: { wkt?: string; projjson?: { id?: { authority: string; code: number | string } } } }>
  }>
}

function layerSummary(l: NonNullable<OgrInfo['layers']>[number]): LayerSummary {
  const geom = l.geometryFields?.[0]
  const cs = geom?.coordinateSystem
  const id = cs?.projjson?.id
  return {
    name: l.name,
    feature_count: l.featureCount ?? null,
    // GDAL says 'Point', 'Multi Polygon', '3D Point'…; NGW spells types 'POINT', 'MULTIPOLYGON'.
    geometry_type: geom?.type ? geom.type.replace(/\s+/g, '').toUpperCase() : null,
    fields: (l.fields ?? []).map((f) => ({ name: f.name, type: f.type })),
    srs: id ? `${id.authority}:${id.code}` : cs?.wkt || null,
  }
}

function gdalMessages(err: unknown): string | undefined {
  const list = Array.isArray(err) ? err : [err]
  const text = list.map((e) => (typeof e === 'string' ? e : (e as { message?: string })?.message ?? '')).filter(Boolean).join('; ')
  return text || undefined
}

/** Removes `dir` and what GDAL left in it (a zip's extracted members stay in /vsizip, not here). */
function removeTree(FS: GdalApi['Module']['FS'], dir: string): void {
  try {
    for (const n of FS.readdir(dir)) if (n !== '.' && n !== '..') {
      try { FS.unlink(`${dir}/${n}`) } catch { removeTree(FS, `${dir}/${n}`) }
    }
    FS.rmdir(dir)
  } catch { /* already gone */ }
}

export interface StorageUse {
  /** Bytes of SQLite's WASM heap (page caches, statements); it grows, never shrinks. */
  wasm_memory: number
  /** Layer databases open now, and the bytes they hold outside the WASM heap (pages). */
  layers_open: number
  layers_resident: number
}

export function storageUse(store: Store, sqlite: Sqlite3Static): StorageUse {
  const { count, bytes } = residencyOf(store).stats()
  return { wasm_memory: sqlite.wasm.heap8u().byteLength, layers_open: count, layers_resident: bytes }
}
