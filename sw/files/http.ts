/**
 * @module files/http
 * Stored files as HTTP responses: whole (streamed chunk by chunk), or one byte range
 * (RFC 9110 §14) read from the chunks it touches, as GDAL's /vsicurl/ and OpenLayers' GeoTIFF
 * source ask for a cloud-optimised GeoTIFF.
 */
import { readRange, streamFile, type ChunkSource, type StoredFile } from './service.ts'

export interface FileResponseOptions {
  type: string
  /** `Content-Disposition` value, e.g. `attachment; filename=12.tif`. */
  disposition?: string
  /** The request's `Range` header. */
  range?: string | null
  /** Headers only (HEAD). */
  head?: boolean
}

/** `[start, end)` of one `bytes=` range, `null` when unsatisfiable, `undefined` when the header is to be ignored. */
export function parseRange(header: string, size: number): [number, number] | null | undefined {
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (!m) return undefined // several ranges or another unit: answer the whole file (allowed by RFC 9110)
  const [, a, b] = m
  if (a === '' && b === '') return undefined
  if (a === '') {
    const n = Number(b)
    return n > 0 && size > 0 ? [Math.max(0, size - n), size] : null
  }
  const start = Number(a)
  const end = b === '' ? size : Math.min(size, Number(b) + 1)
  return start < size && start < end ? [start, end] : null
}

export async function fileResponse(store: ChunkSource, file: StoredFile, opts: FileResponseOptions): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': opts.type, 'accept-ranges': 'bytes' }
  if (opts.disposition) headers['content-disposition'] = opts.disposition
  const range = opts.range ? parseRange(opts.range, file.size) : undefined
  if (range === null) {
    return new Response(null, { status: 416, headers: { ...headers, 'content-range': `bytes */${file.size}` } })
  }
  if (range) {
    const [start, end] = range
    headers['content-range'] = `bytes ${start}-${end - 1}/${file.size}`
    headers['content-length'] = String(end - start)
    return new Response(opts.head ? null : await readRange(store, file, start, end), { status: 206, headers })
  }
  headers['content-length'] = String(file.size)
  return new Response(opts.head ? null : streamFile(store, file), { status: 200, headers })
}

/** `attachment` with the name in plain ASCII and, for other characters, RFC 6266's `filename*`. */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return ascii === name ? `attachment; filename="${name}"` : `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}
