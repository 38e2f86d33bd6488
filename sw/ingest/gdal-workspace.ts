/**
 * @module ingest/gdal-workspace
 * A GDAL job's corner of gdal3.js's memory file system: its inputs under `/input/<job>/`, its
 * outputs named `/output/<job>-…`, all removed when the job ends, whatever happened. Jobs run
 * one at a time per GDAL instance: gdal3.js has one error state and global config options,
 * and its calls block the thread anyway.
 */
import type { GdalApi, GdalDataset, GdalFs, GdalModule, GdalOutput } from '../../wasm/gdal.ts'

const QUEUES = new WeakMap<GdalApi, Promise<unknown>>()
let seq = 0

const GDAL_OF_RASTER = 0x02
const GDAL_OF_VECTOR = 0x04

/** GDAL could not open a file; `message` is GDAL's. */
export class GdalOpenError extends Error {}

export class GdalWorkspace {
  readonly dir: string
  readonly #fs: GdalFs
  readonly #outputs = new Set<string>()

  private constructor(readonly gdal: GdalApi, readonly id: string) {
    this.dir = `/input/${id}`
    this.#fs = gdal.Module.FS
    this.#fs.mkdir(this.dir)
  }

  /** Runs `fn` in a fresh workspace once the jobs before it are done; removes everything after. */
  static run<T>(gdal: GdalApi, fn: (ws: GdalWorkspace) => Promise<T>): Promise<T> {
    const job = async () => {
      const ws = new GdalWorkspace(gdal, `outpost-${Date.now().toString(36)}-${(seq++).toString(36)}`)
      try {
        return await fn(ws)
      } finally {
        ws.#cleanup()
      }
    }
    const run = (QUEUES.get(gdal) ?? Promise.resolve()).then(job, job)
    QUEUES.set(gdal, run.catch(() => undefined))
    return run
  }

  /**
   * Writes an input file and returns its path. The file takes `bytes` as its contents (no
   * copy), so the caller must not change them while the job runs.
   */
  input(name: string, bytes: Uint8Array): string {
    const path = `${this.dir}/${name}`
    this.#fs.writeFile(path, bytes, { canOwn: true })
    return path
  }

  /**
   * Opens `path` (`/vsizip/…` included) as a vector or raster dataset with `options` (open
   * options). gdal3.js's own `open` also runs a full `ogrinfo`, whose extent alone reads every
   * feature once more; callers ask for the summary they need (`ogrinfo -so -noextent`).
   */
  open(path: string, kind: 'vector' | 'raster', options: string[] = []): GdalDataset {
    const m = this.gdal.Module
    m.ccall('CPLErrorReset', null, [], [])
    const list = cStrings(m, options)
    try {
      const pointer = m.ccall('GDALOpenEx', 'number', ['string', 'number', 'number', 'number', 'number'],
        [path, kind === 'vector' ? GDAL_OF_VECTOR : GDAL_OF_RASTER, 0, list.pointer, 0]) as number
      if (!pointer) throw new GdalOpenError(String(m.ccall('CPLGetLastErrorMsg', 'string', [], [])) || 'GDAL could not open the file.')
      return { pointer, path, type: kind }
    } finally {
      list.free()
    }
  }

  /** A name for an application's output (`/output/<name>.<ext>`), unique to this job. */
  outputName(tag: string): string {
    return `${this.id}-${tag}`
  }

  /** Remembers what an application wrote, so it is removed with the job. */
  track(out: GdalOutput): GdalOutput {
    this.#outputs.add(out.local)
    for (const f of out.all ?? []) this.#outputs.add(f.local)
    return out
  }

  /** The bytes of a memory file, without a copy: valid until the file is removed. */
  view(path: string): Uint8Array {
    const { node } = this.#fs.lookupPath(path)
    return node.contents ? node.contents.subarray(0, node.usedBytes) : new Uint8Array(0)
  }

  /** Removes a file now (large outputs go as soon as they are read). */
  remove(path: string): void {
    try { this.#fs.unlink(path) } catch { /* already gone */ }
    this.#outputs.delete(path)
  }

  #cleanup(): void {
    for (const p of this.#outputs) this.remove(p)
    removeTree(this.#fs, this.dir)
  }
}

/** Removes `dir` and what is in it (a zip's members stay inside /vsizip/, never here). */
export function removeTree(fs: GdalFs, dir: string): void {
  try {
    for (const n of fs.readdir(dir)) {
      if (n === '.' || n === '..') continue
      try { fs.unlink(`${dir}/${n}`) } catch { removeTree(fs, `${dir}/${n}`) }
    }
    fs.rmdir(dir)
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

/** gdal3.js rejects with its error list (`[{no, message}]`); the messages, joined. */
export function gdalMessages(err: unknown): string | undefined {
  const list = Array.isArray(err) ? err : [err]
  const text = list.map((e) => (typeof e === 'string' ? e : (e as { message?: string })?.message ?? '')).filter(Boolean).join('; ')
  return text || undefined
}
