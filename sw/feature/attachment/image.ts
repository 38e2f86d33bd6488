/**
 * @module feature/attachment/image
 * Image attachments: the EXIF facts the original reads (orientation, DateTimeOriginal) and
 * PIL-style thumbnails (`Image.thumbnail` after `exif_transpose`, optional centre crop) for
 * JPEG (jpeg-js) and PNG (fast-png). Pure JS, so it runs in the worker and in Node alike.
 */
import { decode as decodeJpeg } from 'jpeg-js'
import { encodeJpegRgba } from '../../image/jpeg.ts'
import { coverResize, decodeRgba, encodeRgba, pngSize, type Rgba } from '../../image/png.ts'

export interface ExifFacts {
  /** EXIF Orientation, 1–8. */
  orientation?: number
  /** DateTimeOriginal as ISO `YYYY-MM-DDTHH:MM:SS`, as Python's `isoformat()` writes it. */
  timestamp?: string
}

/** The largest image decoded for a thumbnail, in megapixels (jpeg-js' own guard). */
const MAX_MEGAPIXELS = 64
/** PIL's default JPEG quality. */
const JPEG_QUALITY = 75

const TAG_ORIENTATION = 0x0112
const TAG_EXIF_IFD = 0x8769
const TAG_DATETIME_ORIGINAL = 0x9003

/** The TIFF payload of a JPEG's `Exif\0\0` APP1 segment, or `undefined`. */
function exifPayload(jpeg: Uint8Array): Uint8Array | undefined {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return undefined
  let at = 2
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff) {
    const marker = jpeg[at + 1]!
    if (marker === 0xd9 || marker === 0xda) return undefined // EOI or scan data: no more headers
    const len = (jpeg[at + 2]! << 8) | jpeg[at + 3]!
    const body = jpeg.subarray(at + 4, at + 2 + len)
    if (marker === 0xe1 && body.length > 14 && String.fromCharCode(...body.subarray(0, 6)) === 'Exif\0\0') {
      return body.subarray(6)
    }
    at += 2 + len
  }
  return undefined
}

/** Reads orientation and DateTimeOriginal from a JPEG; `{}` when absent or unreadable. */
export function readExif(jpeg: Uint8Array): ExifFacts {
  const tiff = exifPayload(jpeg)
  if (!tiff) return {}
  const v = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength)
  const facts: ExifFacts = {}
  try {
    const le = v.getUint16(0) === 0x4949
    if (!le && v.getUint16(0) !== 0x4d4d) return {}
    const u16 = (o: number) => v.getUint16(o, le)
    const u32 = (o: number) => v.getUint32(o, le)
    const entries = (ifd: number, fn: (tag: number, type: number, count: number, entry: number) => void) => {
      const n = u16(ifd)
      for (let i = 0; i < n; i++) {
        const e = ifd + 2 + i * 12
        fn(u16(e), u16(e + 2), u32(e + 4), e)
      }
    }
    let exifIfd: number | undefined
    entries(u32(4), (tag, type, _count, e) => {
      if (tag === TAG_ORIENTATION && type === 3) facts.orientation = u16(e + 8)
      if (tag === TAG_EXIF_IFD) exifIfd = u32(e + 8)
    })
    if (exifIfd !== undefined) {
      entries(exifIfd, (tag, type, count, e) => {
        if (tag !== TAG_DATETIME_ORIGINAL || type !== 2 || count < 19) return
        const at = count > 4 ? u32(e + 8) : e + 8
        const s = String.fromCharCode(...tiff.subarray(at, at + 19))
        const m = /^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(s)
        if (m) facts.timestamp = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}`
      })
    }
  } catch {
    // A truncated or garbled EXIF block is ignored, as PIL ignores it.
  }
  if (facts.orientation !== undefined && (facts.orientation < 1 || facts.orientation > 8)) delete facts.orientation
  return facts
}

/** Decoding failed: not an image of its declared type, or too large. */
export class ImageError extends Error {}

function decodeImage(bytes: Uint8Array, mime: string): Rgba {
  try {
    if (mime === 'image/png') {
      const size = pngSize(bytes)
      if (size && size.width * size.height > MAX_MEGAPIXELS * 1e6) throw new Error(`larger than ${MAX_MEGAPIXELS} megapixels`)
      return decodeRgba(bytes)
    }
    const img = decodeJpeg(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_MEGAPIXELS,
      maxMemoryUsageInMB: MAX_MEGAPIXELS * 8 })
    return { width: img.width, height: img.height, data: img.data }
  } catch (err) {
    throw new ImageError((err as Error).message)
  }
}

function encodeImage(img: Rgba, mime: string): Uint8Array {
  return mime === 'image/png' ? encodeRgba(img) : encodeJpegRgba(img, JPEG_QUALITY)
}

/** Applies EXIF orientation 2–8 so that the image stands upright (PIL `exif_transpose`). */
export function transpose(img: Rgba, orientation: number): Rgba {
  if (orientation <= 1 || orientation > 8) return img
  const { width: w, height: h, data } = img
  const swap = orientation >= 5
  const ow = swap ? h : w, oh = swap ? w : h
  const out = new Uint8Array(data.length)
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      // Where source pixel (x, y) lands in the upright image.
      let dx: number, dy: number
      switch (orientation) {
        case 2: dx = w - 1 - x; dy = y; break
        case 3: dx = w - 1 - x; dy = h - 1 - y; break
        case 4: dx = x; dy = h - 1 - y; break
        case 5: dx = y; dy = x; break
        case 6: dx = h - 1 - y; dy = x; break
        case 7: dx = h - 1 - y; dy = w - 1 - x; break
        default: dx = y; dy = w - 1 - x; break // 8
      }
      const s = (y * w + x) * 4, d = (dy * ow + dx) * 4
      out[d] = data[s]!; out[d + 1] = data[s + 1]!; out[d + 2] = data[s + 2]!; out[d + 3] = data[s + 3]!
    }
  }
  return { width: ow, height: oh, data: out }
}

/**
 * The size PIL's `thumbnail((w, h))` gives an image of `width` × `height`: fitted inside the
 * box keeping the aspect ratio, never enlarged, rounded to the nearer aspect, at least 1.
 */
export function fitSize(width: number, height: number, w: number, h: number): [number, number] {
  if (w >= width && h >= height) return [width, height]
  const aspect = width / height
  const pick = (n: number, err: (k: number) => number) => {
    const lo = Math.floor(n), hi = Math.ceil(n)
    return Math.max(err(lo) <= err(hi) ? lo : hi, 1)
  }
  if (w / h >= aspect) return [pick(h * aspect, (k) => Math.abs(aspect - k / h)), h]
  return [w, pick(w / aspect, (k) => (k === 0 ? 0 : Math.abs(aspect - w / k)))]
}

/** Cuts the centre of `img` to the aspect ratio `w` : `h`. */
function cropToAspect(img: Rgba, w: number, h: number): Rgba {
  const aspect = w / h
  let cw = img.width, ch = img.height
  if (cw / ch > aspect) cw = Math.max(1, Math.round(ch * aspect))
  else ch = Math.max(1, Math.round(cw / aspect))
  if (cw === img.width && ch === img.height) return img
  const x0 = (img.width - cw) >> 1, y0 = (img.height - ch) >> 1
  const out = new Uint8Array(cw * ch * 4)
  for (let y = 0; y < ch; y++) {
    out.set(img.data.subarray(((y0 + y) * img.width + x0) * 4, ((y0 + y) * img.width + x0 + cw) * 4), y * cw * 4)
  }
  return { width: cw, height: ch, data: out }
}

/**
 * A thumbnail of a JPEG or PNG in the same format: upright per EXIF, centre-cropped to the
 * box's aspect when `crop`, then fitted inside `w` × `h`. Throws `ImageError` when the bytes
 * do not decode.
 */
export function thumbnail(bytes: Uint8Array, mime: string, w: number, h: number, crop: boolean): Uint8Array {
  let img = decodeImage(bytes, mime)
  if (mime === 'image/jpeg') img = transpose(img, readExif(bytes).orientation ?? 1)
  if (crop) img = cropToAspect(img, w, h)
  const [tw, th] = fitSize(img.width, img.height, w, h)
  if (tw !== img.width || th !== img.height) img = coverResize(img, tw, th)
  return encodeImage(img, mime)
}
