/**
 * @module image/jpeg
 * JPEG encoding with jpeg-js (pure JS, so the worker and Node encode alike), safe in the
 * service worker.
 */
import { encode } from 'jpeg-js'
import type { Rgba } from './png.ts'

/** `img` as a baseline JPEG of `quality` (1–100); alpha is dropped. */
export function encodeJpegRgba(img: Rgba, quality: number): Uint8Array {
  // jpeg-js returns `Buffer.from(bytes)` whenever `module` exists, which a bundler's CommonJS
  // wrapper provides even in the worker; lend it a stand-in for the duration of the call.
  const g = globalThis as { Buffer?: unknown }
  const lent = g.Buffer === undefined
  if (lent) g.Buffer = { from: (a: ArrayLike<number>) => Uint8Array.from(a) }
  try {
    const out = encode({ width: img.width, height: img.height, data: img.data }, quality).data as Uint8Array
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
  } finally {
    if (lent) delete g.Buffer
  }
}
