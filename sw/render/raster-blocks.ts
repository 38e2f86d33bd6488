/**
 * @module render/raster-blocks
 * Windows of 8-bit, pixel-interleaved rasters (what ingest stores: a tiled GeoTIFF) put
 * together from decoded blocks, row by row, with a bounded cache of decoded blocks shared by
 * all rasters: neighbouring map tiles and zoom levels read the same blocks again, as GDAL's
 * block cache spares MapServer. DEFLATE blocks are inflated by the host when it offers a
 * native inflate (`node:zlib` in Node), else by geotiff's own pako.
 */
import { BaseDecoder, addDecoder, getDecoder, type GeoTIFFImage } from 'geotiff'

/** Decoded bytes kept across tiles: 256 × 256 RGB blocks are 192 KiB, so about 170 of them. */
const CACHE_BYTES = 32 * 1024 * 1024

interface Block { bytes: Uint8Array }
const blocks = new Map<string, Promise<Block>>()
const sizes = new Map<string, number>()
let cached = 0
const ids = new WeakMap<GeoTIFFImage, number>()
let nextId = 0
const decoders = new WeakMap<GeoTIFFImage, Promise<BaseDecoder>>()

let hostInflate: ((data: Uint8Array) => Uint8Array) | undefined

/** geotiff's decoder for DEFLATE (8, and Adobe's 32946) running the host's inflate. */
class HostInflateDecoder extends BaseDecoder {
  override decodeBlock(buffer: ArrayBufferLike): ArrayBufferLike {
    const out = hostInflate!(new Uint8Array(buffer))
    return out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out.buffer : out.slice().buffer
  }
}

/** Makes DEFLATE blocks decode with `inflate` from now on (the Node host passes node:zlib's). */
export function useHostInflate(inflate: (data: Uint8Array) => Uint8Array): void {
  if (!hostInflate) addDecoder([8, 32946], async () => HostInflateDecoder as never)
  hostInflate = inflate
}

function decoderOf(img: GeoTIFFImage): Promise<BaseDecoder> {
  let d = decoders.get(img)
  if (!d) {
    const fd = img.fileDirectory
    d = (async () => {
      const compression = Number(await fd.loadValue('Compression') ?? 1)
      return getDecoder(compression, {
        tileWidth: img.getTileWidth(), tileHeight: img.getTileHeight(), planarConfiguration: img.planarConfiguration,
        bitsPerSample: await fd.loadValue('BitsPerSample'), predictor: Number(await fd.loadValue('Predictor') ?? 1),
      } as never) as Promise<BaseDecoder>
    })()
    decoders.set(img, d)
  }
  return d
}

function blockOf(img: GeoTIFFImage, bx: number, by: number, signal?: AbortSignal): Promise<Block> {
  let id = ids.get(img)
  if (id === undefined) ids.set(img, id = nextId++)
  const key = `${id}:${bx}:${by}`
  const hit = blocks.get(key)
  if (hit) {
    // Most recently used last: eviction takes from the front.
    blocks.delete(key); blocks.set(key, hit)
    return hit
  }
  const p = decoderOf(img)
    .then((d) => img.getTileOrStrip(bx, by, 0, d, signal))
    .then(({ data }) => ({ bytes: new Uint8Array(data as ArrayBuffer) }))
  blocks.set(key, p)
  p.then((b) => {
    if (blocks.get(key) !== p) return
    sizes.set(key, b.bytes.byteLength)
    cached += b.bytes.byteLength
    for (const [k] of blocks) {
      if (cached <= CACHE_BYTES) break
      const n = sizes.get(k)
      if (n === undefined) continue
      blocks.delete(k); sizes.delete(k); cached -= n
    }
  }, () => blocks.delete(key))
  return p
}

/**
 * The window `[x0, y0, x1, y1)` of `img` as `bands` interleaved bytes a pixel, or `undefined`
 * when the image is not 8-bit unsigned and pixel-interleaved (the caller reads it through
 * geotiff's general `readRasters`).
 */
export async function readWindow(img: GeoTIFFImage, [x0, y0, x1, y1]: readonly [number, number, number, number], bands: number,
  signal?: AbortSignal): Promise<Uint8Array | undefined> {
  const spp = img.getSamplesPerPixel()
  if (img.planarConfiguration !== 1 || img.getBytesPerPixel() !== spp) return undefined
  for (let s = 0; s < spp; s++) if (img.getBitsPerSample(s) !== 8 || img.getSampleFormat(s) !== 1) return undefined
  const tw = img.getTileWidth(), th = img.getTileHeight()
  const ww = x1 - x0, out = new Uint8Array(ww * (y1 - y0) * bands)
  const jobs: Promise<void>[] = []
  for (let by = Math.floor(y0 / th); by * th < y1; by++) {
    for (let bx = Math.floor(x0 / tw); bx * tw < x1; bx++) {
      jobs.push(blockOf(img, bx, by, signal).then(({ bytes }) => {
        const cx0 = Math.max(x0, bx * tw), cx1 = Math.min(x1, (bx + 1) * tw, img.getWidth())
        const cy0 = Math.max(y0, by * th), cy1 = Math.min(y1, (by + 1) * th, img.getHeight())
        for (let y = cy0; y < cy1; y++) {
          const src = ((y - by * th) * tw + (cx0 - bx * tw)) * spp
          const dst = ((y - y0) * ww + (cx0 - x0)) * bands
          if (spp === bands) out.set(bytes.subarray(src, src + (cx1 - cx0) * spp), dst)
          else for (let x = 0; x < cx1 - cx0; x++) for (let b = 0; b < bands; b++) out[dst + x * bands + b] = bytes[src + x * spp + b]!
        }
      }))
    }
  }
  await Promise.all(jobs)
  return out
}
