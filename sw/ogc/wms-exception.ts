/**
 * @module ogc/wms-exception
 * How a WMS request's error reaches its client (reference ngw-services §2.7, §6.6): never as
 * the JSON error body, always as a ServiceExceptionReport with the error's own status, or as
 * an image when a GetMap asks for exceptions in the image (`se_inimage`/`INIMAGE`, `BLANK`).
 */
import { ApiError } from '../core/error.ts'
import type { CanvasFactory } from '../image/canvas.ts'
import { LABEL_FONT_FAMILY } from '../image/canvas.ts'
import { el } from './xml-out.ts'
import type { WmsParams, WmsVersion } from './wms-params.ts'
import { MAX_IMAGE_SIZE } from './wms-params.ts'
import { encodeMap, type MapFormat } from './wms-image.ts'

/**
 * 1.1.1 as the original sends it (no declaration, no namespace, and no charset: WebOb drops the
 * one NGW passes for a type outside text/*); OWSLib 1.3.0 needs the OGC namespace and `text/xml`.
 */
const REPORT = {
  '1.1.1': { type: 'application/vnd.ogc.se_xml', attrs: { version: '1.1.1' } },
  '1.3.0': { type: 'text/xml; charset=utf-8', attrs: { xmlns: 'http://www.opengis.net/ogc', version: '1.3.0' } },
} as const

/** The OGC code of `err` in `version`'s words (1.3.0 renamed InvalidSRS). */
function codeOf(err: ApiError, version: WmsVersion): string | undefined {
  const code = typeof err.opts.data?.code === 'string' ? err.opts.data.code : undefined
  return version === '1.3.0' && code === 'InvalidSRS' ? 'InvalidCRS' : code
}

export function exceptionText(err: ApiError): string {
  return err.opts.message ? `${err.title}: ${err.opts.message}` : err.title
}

export function exceptionReport(err: ApiError, version: WmsVersion): Response {
  const { type, attrs } = REPORT[version]
  const body = el('ServiceExceptionReport', attrs, [el('ServiceException', { code: codeOf(err, version) }, exceptionText(err))])
  return new Response(body, { status: err.status, headers: { 'content-type': type, ...err.opts.headers } })
}

/** The image size of a request, or `undefined` when it has none that could be drawn (the original then failed itself). */
function sizeOf(params: WmsParams): [number, number] | undefined {
  const [w, h] = [params.get('WIDTH'), params.get('HEIGHT')].map((s) => (s && /^\d{1,9}$/.test(s) ? Number(s) : NaN))
  return w! >= 1 && w! <= MAX_IMAGE_SIZE && h! >= 1 && h! <= MAX_IMAGE_SIZE ? [w!, h!] : undefined
}

/**
 * The answer to a failed GetMap: the report, or, when `EXCEPTIONS` asks for it and the size
 * can be read, a transparent image (with the message drawn in grey for `in image`; empty
 * for `blank`) in the requested format, as a 200 like the original's: a client asking for the
 * error in the image draws whatever image comes, and GDAL and QGIS drop a non-200 one.
 */
export async function mapException(err: ApiError, version: WmsVersion, params: WmsParams, canvas: CanvasFactory): Promise<Response> {
  const mode = (params.get('EXCEPTIONS') ?? '').toUpperCase()
  const inImage = mode === 'APPLICATION/VND.OGC.SE_INIMAGE' || mode === 'INIMAGE'
  const blank = mode === 'APPLICATION/VND.OGC.SE_BLANK' || mode === 'BLANK'
  const size = sizeOf(params)
  if (!(inImage || blank) || !size) return exceptionReport(err, version)
  const format: MapFormat = params.get('FORMAT') === 'image/jpeg' ? 'image/jpeg' : 'image/png'
  const s = canvas(size[0], size[1])
  if (inImage) {
    s.ctx.font = `12px ${LABEL_FONT_FAMILY}`
    s.ctx.fillStyle = 'rgba(128,128,128,1)'
    s.ctx.textBaseline = 'top'
    s.ctx.textAlign = 'left'
    s.ctx.fillText(exceptionText(err), 4, 4)
  }
  const bytes = await encodeMap(canvas, s, format, { transparent: true, color: '#ffffff' })
  return new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers: { 'content-type': format } })
}
