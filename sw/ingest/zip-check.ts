/**
 * @module ingest/zip-check
 * A zip's members may lie about their size: GDAL's /vsizip/ inflates a member to its end
 * whatever its header declares (a 1 GiB member declared as 100 bytes held GDAL 21 s). So
 * each DEFLATE member is inflated once here, natively (`DecompressionStream`, off the
 * JavaScript thread's hot path in both hosts), counting, and refused as soon as it passes its
 * declared size: never more than the declared total, which `checkUnzippedSize` bounds.
 */
import { ApiError } from '../core/error.ts'
import { expansionTooLarge, sourceError } from './errors.ts'

const EOCD = 0x06054b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50
const DEFLATE = 8

interface Member { name: string; method: number; compressed: number; declared: number; localAt: number }

/** The members as the central directory lists them (names, sizes, where their local headers are). */
function members(bytes: Uint8Array, file: string): Member[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let end = -1
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) { end = i; break }
  }
  const unreadable = () => sourceError({ file, message: 'the ZIP archive cannot be read (its central directory is damaged).' })
  if (end < 0) throw unreadable()
  const out: Member[] = []
  let at = view.getUint32(end + 16, true)
  for (let n = view.getUint16(end + 10, true); n > 0; n--) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL) throw unreadable()
    const nameLength = view.getUint16(at + 28, true)
    out.push({ name: new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)), method: view.getUint16(at + 10, true),
      compressed: view.getUint32(at + 20, true), declared: view.getUint32(at + 24, true), localAt: view.getUint32(at + 42, true) })
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true)
  }
  return out
}

/** Throws a 413 when a DEFLATE member inflates past its declared size. */
export async function checkZipMembers(bytes: Uint8Array, file: string): Promise<void> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (const m of members(bytes, file)) {
    // ZIP64 sizes (0xFFFFFFFF here) are over the unzipped-size limit already.
    if (m.method !== DEFLATE || m.compressed === 0xffffffff || m.localAt + 30 > bytes.length) continue
    if (view.getUint32(m.localAt, true) !== LOCAL) continue
    const start = m.localAt + 30 + view.getUint16(m.localAt + 26, true) + view.getUint16(m.localAt + 28, true)
    const data = bytes.subarray(start, Math.min(bytes.length, start + m.compressed))
    const reader = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader()
    let size = 0
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        size += value.length
        if (size > m.declared) {
          await reader.cancel().catch(() => undefined)
          throw expansionTooLarge(file, 'unzipped_size', size, m.declared,
            `the ZIP archive's member ${m.name} inflates past the ${m.declared} bytes its header declares (stopped at ${size}).`)
        }
      }
    } catch (err) {
      if (err instanceof ApiError) throw err
      // A damaged stream is GDAL's to report, as for any unreadable file.
    }
  }
}
