/**
 * @module upload/multipart
 * A `multipart/form-data` body parsed as it arrives (multipasta: a push parser with no
 * dependencies that runs in a worker as in Node), each file part passed on as a stream of
 * chunks while the body is still being read, so a form of any size never sits in memory.
 * The network is read only as fast as the file parts are consumed.
 */
import { decodeField, make, type MultipartError, type PartInfo } from 'multipasta'
import type { ApiError } from '../core/error.ts'
import { badRequest } from './errors.ts'
import { partNames } from './body.ts'

/** Chunks pushed by the parser and pulled by a consumer, with a way to wait until it caught up. */
class ChunkQueue implements AsyncIterable<Uint8Array> {
  #items: Uint8Array[] = []
  #ended = false
  #error: unknown
  #wake: (() => void) | undefined
  #drained: (() => void) | undefined
  /** The consumer stopped: later chunks are dropped, not kept. */
  #closed = false

  push(c: Uint8Array): void {
    if (this.#closed) return
    this.#items.push(c)
    this.#notify()
  }
  end(): void { this.#ended = true; this.#notify() }
  fail(err: unknown): void { this.#error ??= err; this.#notify() }

  /** Resolves once every pushed chunk was taken (or the consumer stopped). */
  drained(): Promise<void> {
    if (!this.#items.length || this.#error !== undefined) return Promise.resolve()
    return new Promise((resolve) => { this.#drained = resolve })
  }

  #notify(): void {
    this.#wake?.()
    this.#wake = undefined
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        if (this.#error !== undefined) throw this.#error
        const next = this.#items.shift()
        if (next) {
          if (!this.#items.length) { this.#drained?.(); this.#drained = undefined }
          yield next
        } else if (this.#ended) {
          return
        } else {
          await new Promise<void>((resolve) => { this.#wake = resolve })
        }
      }
    } finally {
      this.#closed = true
      this.#items = []
      this.#drained?.()
    }
  }
}

/** A part's field name and file name (multipasta's `PartInfo` ones fail on raw UTF-8 names). */
function namesOf(info: PartInfo): { name: string; filename?: string } {
  const h = info.headers['content-disposition']
  return partNames(Array.isArray(h) ? h[0] : h)
}

/** One part of the form: a text value, or a file whose handler's result is `file`. */
export type FormEntry<T> = { name: string; text: string } | { name: string; file: Promise<T> }

export interface FormLimits {
  /** Largest file part; past it `fileTooLarge()` is thrown. */
  maxFile: number
  fileTooLarge: () => ApiError
  /** At most this many parts. @default 1000 */
  maxParts?: number
  /** Largest text value. @default 65536 */
  maxField?: number
}

function parseError(e: MultipartError): ApiError {
  if (e._tag === 'ReachedLimit') return badRequest(`The multipart body has too many parts or too long a value (${e.limit}).`)
  return badRequest(`The multipart body could not be parsed (${e._tag}).`)
}

/**
 * Reads the form in `chunks` (a body whose Content-Type is `contentType`). Every part with a
 * file name goes to `onFile` with that name and its Content-Type (if it had one), as a stream
 * while the body is read; the entries come back in
 * order once the body ended. If the body fails (too large, malformed, cut off) this throws,
 * after every `onFile` has settled, and hands the settled files to `discard` first.
 */
export async function readForm<T>(contentType: string, chunks: AsyncIterable<Uint8Array>, limits: FormLimits,
  onFile: (part: { filename: string; type?: string }, chunks: AsyncIterable<Uint8Array>) => Promise<T>, discard: (files: T[]) => Promise<void>): Promise<FormEntry<T>[]> {
  const entries: FormEntry<T>[] = []
  let current: ChunkQueue | undefined
  let failure: ApiError | undefined
  let done = false
  const parser = make({
    headers: { 'content-type': contentType },
    isFile: (info) => namesOf(info).filename !== undefined,
    maxParts: limits.maxParts ?? 1000,
    maxFieldSize: limits.maxField ?? 65536,
    onField(info, value) { entries.push({ name: namesOf(info).name, text: decodeField(info, value) }) },
    onFile(info) {
      const queue = new ChunkQueue()
      current = queue
      // Caught here and rethrown when the form is done: a part may fail before anyone awaits it.
      const { name, filename } = namesOf(info)
      const type = info.headers['content-type'] === undefined ? undefined : info.contentType
      const file = onFile({ filename: filename!, type }, queue)
      file.catch((err: unknown) => { failure ??= err as ApiError })
      entries.push({ name, file })
      // Counted here: multipasta's own part limit counts the part's headers too.
      let size = 0
      return (chunk) => {
        if (chunk === null) return queue.end()
        size += chunk.length
        if (size > limits.maxFile) {
          failure ??= limits.fileTooLarge()
          queue.fail(failure)
        } else {
          queue.push(chunk)
        }
      }
    },
    onError(e) {
      failure ??= parseError(e)
      current?.fail(failure)
    },
    onDone() { done = true },
  })
  try {
    for await (const chunk of chunks) {
      parser.write(chunk)
      if (failure) break
      await current?.drained()
    }
    if (!failure) parser.end()
    if (!failure && !done) failure = badRequest('The multipart body ended before its closing boundary.')
  } catch (err) {
    failure = err as ApiError
  }
  const files = entries.flatMap((e) => ('file' in e ? [e.file] : []))
  if (failure) {
    current?.fail(failure)
    const settled = await Promise.allSettled(files)
    await discard(settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])))
    throw failure
  }
  const settled = await Promise.allSettled(files)
  const rejected = settled.find((r) => r.status === 'rejected')
  if (rejected) {
    await discard(settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])))
    throw (rejected as PromiseRejectedResult).reason
  }
  return entries
}
