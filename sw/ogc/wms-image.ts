/**
 * @module ogc/wms-image
 * The image of a GetMap (reference ngw-services §2.4): what was drawn laid on the background
 * (`TRANSPARENT`, `BGCOLOR`), encoded as PNG or JPEG (image/jpeg).
 */
import { encodeJpegRgba } from '../image/jpeg.ts'
import type { CanvasFactory, Surface } from '../image/canvas.ts'
import type { WmsParams } from './wms-params.ts'
import { invalidFormat, invalidValue } from './wms-errors.ts'

export const MAP_FORMATS = ['image/png', 'image/jpeg'] as const
export type MapFormat = (typeof MAP_FORMATS)[number]

/** PIL's default JPEG quality, as the original's. */
const JPEG_QUALITY = 75

export interface Background { transparent: boolean; color: string }

/** `FORMAT` (default PNG): exactly one of `MAP_FORMATS`, as the original (§2.4). */
export function mapFormatOf(params: WmsParams): MapFormat {
  const f = params.get('FORMAT') || 'image/png'
  if (!(MAP_FORMATS as readonly string[]).includes(f)) throw invalidFormat(f)
  return f as MapFormat
}

/** `TRANSPARENT` (anything but FALSE is transparent, §2.4) and `BGCOLOR` (`0xRRGGBB`, default white). */
export function backgroundOf(params: WmsParams): Background {
  const transparent = (params.get('TRANSPARENT') ?? 'FALSE').toUpperCase() !== 'FALSE'
  const raw = params.get('BGCOLOR')
  if (raw === undefined || raw === '') return { transparent, color: '#ffffff' }
  const m = /^(?:0x|#)([0-9a-f]{6})$/i.exec(raw)
  if (!m) throw invalidValue(`Invalid BGCOLOR parameter: '${raw}'.`)
  return { transparent, color: `#${m[1]}` }
}

/**
 * `drawn` encoded as `format`. An opaque image (and every JPEG) is laid on the background
 * colour first; a transparent PNG is the drawing as it is.
 */
export async function encodeMap(canvas: CanvasFactory, drawn: Surface, format: MapFormat, bg: Background): Promise<Uint8Array> {
  let out = drawn
  if (!bg.transparent || format === 'image/jpeg') {
    out = canvas(drawn.width, drawn.height)
    out.ctx.fillStyle = bg.color
    out.ctx.beginPath()
    out.ctx.rect(0, 0, drawn.width, drawn.height)
    out.ctx.fill()
    out.drawSurface(drawn)
  }
  if (format === 'image/png') return out.png()
  const rgba = out.rgba()
  return encodeJpegRgba({ data: new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.byteLength), width: out.width, height: out.height }, JPEG_QUALITY)
}
