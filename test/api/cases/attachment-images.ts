/**
 * Tiny test images made on the fly: JPEGs (jpeg-js) with an optional EXIF APP1 segment
 * carrying Orientation and DateTimeOriginal, PNGs (fast-png), and decoders for answers.
 */
import { decode as decodeJpeg, encode as encodeJpeg } from 'jpeg-js'
import { decode as decodePng, encode as encodePng } from 'fast-png'

export interface ExifSpec {
  orientation?: number
  /** EXIF form `YYYY:MM:DD HH:MM:SS`. */
  dateTimeOriginal?: string
}

/**
 * `Exif\0\0` + a little-endian TIFF block: IFD0 with Orientation and a pointer to the Exif
 * IFD, which holds DateTimeOriginal.
 */
export function exifSegment(spec: ExifSpec): Uint8Array {
  const buf = new Uint8Array(128)
  const v = new DataView(buf.buffer)
  buf.set([0x45, 0x78, 0x69, 0x66, 0, 0], 0)
  const T = 6 // TIFF offsets are relative to here
  v.setUint16(T, 0x4949); v.setUint16(T + 2, 42, true); v.setUint32(T + 4, 8, true)
  const ifd0 = [] as [number, number, number, number][]
  if (spec.orientation !== undefined) ifd0.push([0x0112, 3, 1, spec.orientation])
  const exifAt = 8 + 2 + 12 * (ifd0.length + 1) + 4
  ifd0.push([0x8769, 4, 1, exifAt])
  const writeIfd = (at: number, entries: [number, number, number, number][]) => {
    v.setUint16(T + at, entries.length, true)
    entries.forEach(([tag, type, count, value], i) => {
      const e = T + at + 2 + i * 12
      v.setUint16(e, tag, true); v.setUint16(e + 2, type, true); v.setUint32(e + 4, count, true)
      if (type === 3) v.setUint16(e + 8, value, true)
      else v.setUint32(e + 8, value, true)
    })
    v.setUint32(T + at + 2 + entries.length * 12, 0, true)
  }
  writeIfd(8, ifd0)
  const strAt = exifAt + 2 + 12 + 4
  writeIfd(exifAt, spec.dateTimeOriginal ? [[0x9003, 2, 20, strAt]] : [])
  if (spec.dateTimeOriginal) buf.set(new TextEncoder().encode(spec.dateTimeOriginal + '\0'), T + strAt)
  return buf.subarray(0, T + strAt + 20)
}

/** A `width` × `height` JPEG: left half red, right half blue, with EXIF when asked. */
export function makeJpeg(width: number, height: number, exif?: ExifSpec): Uint8Array {
  const data = new Uint8Array(width * height * 4)
  for (let i = 0; i < width * height; i++) {
    const left = i % width < width / 2
    data.set(left ? [255, 0, 0, 255] : [0, 0, 255, 255], i * 4)
  }
  const img = { width, height, data, ...(exif ? { exifBuffer: exifSegment(exif) } : {}) }
  return new Uint8Array(encodeJpeg(img as Parameters<typeof encodeJpeg>[0], 90).data)
}

export function makePng(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4).fill(200)
  return encodePng({ width, height, data, channels: 4, depth: 8 })
}

const fromBase64 = (b64: string) => Uint8Array.from(Buffer.from(b64, 'base64'))

/** Width and height of a JPEG or PNG answer body. */
export function imageSize(b64: string, mime: 'image/jpeg' | 'image/png'): [number, number] {
  const bytes = fromBase64(b64)
  if (mime === 'image/png') {
    const png = decodePng(bytes)
    return [png.width, png.height]
  }
  const img = decodeJpeg(bytes, { useTArray: true })
  return [img.width, img.height]
}

/** RGB of pixel (x, y) of a JPEG answer body. */
export function jpegPixel(b64: string, x: number, y: number): [number, number, number] {
  const img = decodeJpeg(fromBase64(b64), { useTArray: true })
  const i = (y * img.width + x) * 4
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!]
}
