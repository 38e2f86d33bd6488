/**
 * @module ogc/wms-handler
 * One WMS request to one service (reference ngw-services §2.2): its parameters (the query, or
 * a POST's form or XML body), the version answered, the dispatch by `SERVICE` and `REQUEST`,
 * and every failure as a WMS exception (§2.7), never as the JSON error body.
 */
import { ApiError, internalServerError, payloadTooLarge } from '../core/error.ts'
import { readBytes } from '../core/limits.ts'
import type { Principal } from '../auth/types.ts'
import { parseXml, XmlError } from '../render/xml.ts'
import type { WmsService, WmsServices } from './types.ts'
import { versionOf, wmsParams, type WmsParams, type WmsVersion } from './wms-params.ts'
import { badRequest } from './wms-errors.ts'
import { exceptionReport, mapException } from './wms-exception.ts'
import { capabilities } from './wms-capabilities.ts'
import { layerFacts, readableLayers } from './wms-layers.ts'
import { getLegend, getMap } from './wms-map.ts'
import { getFeatureInfo } from './wms-info.ts'
import { listSrs } from '../geo/srs.ts'

/** A POST body's limit: a request's parameters are a few hundred bytes. */
const POST_LIMIT = 64 * 1024

/**
 * The parameters of `request`: the query's, then a POST body's over them, either a form
 * (`application/x-www-form-urlencoded`) or XML whose root is the request and whose attributes
 * are the parameters (the original reads only this form).
 */
export async function requestParams(request: Request): Promise<WmsParams> {
  const pairs: Array<[string, string]> = [...new URL(request.url).searchParams]
  if (request.method === 'POST') {
    const text = new TextDecoder().decode(await readBytes(request, POST_LIMIT, () => payloadTooLarge(POST_LIMIT)))
    if (/^\s*</.test(text)) {
      let root
      try {
        root = parseXml(text)
      } catch (err) {
        if (err instanceof XmlError) throw badRequest(`The XML body cannot be read: ${err.message}`)
        throw err
      }
      pairs.push(...Object.entries(root.attrs), ['REQUEST', root.name.replace(/^.*:/, '')])
    } else pairs.push(...new URLSearchParams(text))
  }
  return wmsParams(pairs)
}

export interface WmsRequest {
  services: WmsServices
  user: Principal
  service: WmsService
  params: WmsParams
  /** The endpoint's URL without query. */
  url: string
  signal?: AbortSignal
}

/** The answer to a WMS request; any error becomes the exception the client reads. */
export async function answerWms(r: WmsRequest): Promise<Response> {
  const version = versionOf(r.params)
  const op = (r.params.get('REQUEST') ?? '').toUpperCase()
  try {
    if ((r.params.get('SERVICE') ?? '').toUpperCase() !== 'WMS') throw badRequest('The SERVICE parameter must be WMS.', 'InvalidParameterValue')
    return await dispatch(r, op, version)
  } catch (err) {
    if (r.signal?.aborted) throw err
    const apiErr = err instanceof ApiError ? err : internalServerError(err)
    if (apiErr.status >= 500) r.services.platform.log(`WMS ${op} of service ${r.service.id} failed`, err)
    return op === 'GETMAP' || op === 'MAP' ? mapException(apiErr, version, r.params, r.services.platform.canvas) : exceptionReport(apiErr, version)
  }
}

async function dispatch(r: WmsRequest, op: string, version: WmsVersion): Promise<Response> {
  const { services, user, service, params } = r
  switch (op) {
    case 'GETCAPABILITIES': {
      const layers = await layerFacts(services, await readableLayers(services, user, service))
      // EPSG:4326 first: GDAL takes the first SRS for a layer without its own box (§6.4).
      const srs = [4326, ...listSrs().map((s) => s.id).filter((id) => id !== 4326)]
      const doc = capabilities({ version, url: r.url, title: service.title, abstract: service.abstract, srs, layers })
      return new Response(doc.body, { headers: { 'content-type': doc.contentType } })
    }
    case 'GETMAP':
    case 'MAP': {
      const { bytes, format } = await getMap(services, user, service, params, version, r.signal)
      return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': format } })
    }
    case 'GETFEATUREINFO': {
      const { body, contentType } = await getFeatureInfo(services, user, service, params, version)
      return new Response(body, { headers: { 'content-type': contentType } })
    }
    case 'GETLEGENDGRAPHIC':
      return new Response(await getLegend(services, user, service, params) as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'image/png' } })
    default:
      throw badRequest(op ? `Unsupported REQUEST '${params.get('REQUEST')}'.` : 'The REQUEST parameter is missing.', 'OperationNotSupported')
  }
}
