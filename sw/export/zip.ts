/**
 * @module export/zip
 * A ZIP archive written as a stream (fflate), entry after entry, each entry read from its
 * own stream only when its turn comes: an archive of several large files never holds more
 * than one of them. Names that are not ASCII are flagged UTF-8 (general purpose bit 11).
 */
import { Zip, ZipDeflate } from 'fflate'

export interface ZipEntry {
  name: string
  open(): ReadableStream<Uint8Array> | Promise<ReadableStream<Uint8Array>>
}

/** Deflate level: 6 is zlib's default, a fair trade between size and time. */
const LEVEL = 6

export function zipStream(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>): ReadableStream<Uint8Array> {
  let wake: (() => void) | undefined
  let cancelled = false
  let current: ReadableStreamDefaultReader<Uint8Array> | undefined
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const zip = new Zip((err, chunk, final) => {
        if (err) { controller.error(err); return }
        if (cancelled) return
        controller.enqueue(chunk)
        if (final) controller.close()
      })
      // Waits while the consumer has enough queued (the stream's backpressure).
      const room = async () => {
        while (!cancelled && (controller.desiredSize ?? 1) <= 0) await new Promise<void>((r) => { wake = r })
      }
      void (async () => {
        for await (const e of entries) {
          if (cancelled) return
          const file = new ZipDeflate(e.name, { level: LEVEL })
          zip.add(file)
          current = (await e.open()).getReader()
          for (;;) {
            const { done, value } = await current.read()
            if (done || cancelled) break
            file.push(value, false)
            await room()
          }
          file.push(new Uint8Array(0), true)
        }
        if (!cancelled) zip.end()
      })().catch((err: unknown) => { if (!cancelled) controller.error(err) })
    },
    pull() {
      wake?.()
      wake = undefined
    },
    async cancel(reason) {
      cancelled = true
      wake?.()
      await current?.cancel(reason).catch(() => undefined)
    },
  }, { highWaterMark: 4 })
}

/** A stream of one array. */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ start(c) { c.enqueue(bytes); c.close() } })
}
