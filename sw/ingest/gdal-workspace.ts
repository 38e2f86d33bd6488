/**
 * @module ingest/gdal-workspace
 * A GDAL job's corner of gdal3.js's memory file system: its inputs under `/input/<job>/`, its
 * outputs named `/output/<job>-…`, all removed when the job ends, whatever happened. Jobs run
 * one at a time per GDAL engine: gdal3.js has one error state and global config options,
 * and one thread.
 */
import type { GdalDataset, GdalEngine, GdalOutput } from '../../wasm/gdal.ts'

const QUEUES = new WeakMap<GdalEngine, Promise<unknown>>()
let seq = 0

/** GDAL could not open a file; `message` is GDAL's. */
export class GdalOpenError extends Error {}

export class GdalWorkspace {
  readonly dir: string
  readonly #outputs = new Set<string>()

  private constructor(readonly gdal: GdalEngine, readonly id: string) {
    this.dir = `/input/${id}`
  }

  /** Runs `fn` in a fresh workspace once the jobs before it are done; removes everything after. */
  static run<T>(gdal: GdalEngine, fn: (ws: GdalWorkspace) => Promise<T>): Promise<T> {
    const job = async () => {
      const ws = new GdalWorkspace(gdal, `outpost-${Date.now().toString(36)}-${(seq++).toString(36)}`)
      try {
        return await fn(ws)
      } finally {
        await ws.#cleanup()
      }
    }
    const run = (QUEUES.get(gdal) ?? Promise.resolve()).then(job, job)
    QUEUES.set(gdal, run.catch(() => undefined))
    return run
  }

  /**
   * Writes an input file and returns its path. The engine may take `bytes` (no copy), so the
   * caller must not use them afterwards.
   */
  async input(name: string, bytes: Uint8Array): Promise<string> {
    const path = `${this.dir}/${name}`
    await this.gdal.writeFile(path, bytes)
    return path
  }

  /**
   * Opens `path` (`/vsizip/…` included) as a vector or raster dataset with `options` (open
   * options). gdal3.js's own `open` also runs a full `ogrinfo`, whose extent alone reads every
   * feature once more; callers ask for the summary they need (`ogrinfo -so -noextent`).
   */
  async open(path: string, kind: 'vector' | 'raster', options: string[] = []): Promise<GdalDataset> {
    const ds = await this.gdal.openEx(path, kind, options)
    if ('error' in ds) throw new GdalOpenError(ds.error)
    return ds
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

  /** The bytes of a file (a copy: GDAL's is removed with the job, or sooner by `remove`). */
  read(path: string): Promise<Uint8Array> {
    return this.gdal.readFile(path)
  }

  /** Removes a file now (large outputs go as soon as they are read). */
  async remove(path: string): Promise<void> {
    this.#outputs.delete(path)
    await this.gdal.remove(path)
  }

  async #cleanup(): Promise<void> {
    for (const p of this.#outputs) await this.gdal.remove(p).catch(() => undefined)
    await this.gdal.remove(this.dir).catch(() => undefined)
  }
}

/** gdal3.js rejects with its error list (`[{no, message}]`); the messages, joined. */
export function gdalMessages(err: unknown): string | undefined {
  const list = Array.isArray(err) ? err : [err]
  const text = list.map((e) => (typeof e === 'string' ? e : (e as { message?: string })?.message ?? '')).filter(Boolean).join('; ')
  return text || undefined
}
