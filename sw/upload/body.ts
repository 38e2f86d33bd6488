/**
 * @module upload/body
 * Request bodies read as bytes with a ceiling, so an oversized upload is refused as soon as it
 * passes the limit instead of after it has been buffered whole.
 */
import { concatBytes } from '../core/bytes.ts'
import { badRequest, uploadTooLarge } from './errors.ts'

/**
 * The whole body of `request`, at most `limit` bytes. A larger declared Content-Length, or
 * more bytes than `limit` arriving, is a 413 (`tooLarge` builds it).
 */
export async function readBytes(request: Request, limit: number,
  tooLarge = () => uploadTooLarge(limit)): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw tooLarge()
  if (!request.body) return new Uint8Array(0)
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>
    try {
      step = await reader.read()
    } catch (err) {
      throw badRequest(`The request body could not be read: ${(err as Error).message}`)
    }
    if (step.done) break
    total += step.value.length
    if (total > limit) {
      await reader.cancel().catch(() => undefined)
      throw tooLarge()
    }
    chunks.push(step.value)
  }
  return concatBytes(chunks)
}

/** A file name without any path, trimmed; `undefined` when nothing is left (the original's `_sanitize_name`). */
export function sanitizeName(name: string | null | undefined): string | undefined {
  if (name == null) return undefined
  const base = name.replace(/^.*[/\\]/, '').trim()
  return base || undefined
}

/** The file name of a `Content-Disposition` header: `filename*=UTF-8''…` first, then `filename=`. */
export function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined
  const ext = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header)
  if (ext) {
    try { return sanitizeName(decodeURIComponent(ext[1]!.trim())) } catch { /* fall back to filename= */ }
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header)
  if (quoted) return sanitizeName(quoted[1]!.replace(/\\(.)/g, '$1'))
  const bare = /filename\s*=\s*([^;]+)/i.exec(header)
  return sanitizeName(bare?.[1])
}
