/**
 * @module ogc/client/capabilities
 * A remote WMS's GetCapabilities document read as the original's `capcache` (reference
 * ngw-services §3.2): the GetMap formats, the leaf layers with their WGS 84 boxes, every
 * reference system named, and the advertised request URLs. Namespaces are ignored (the
 * original matches `{*}`), so 1.1.1 and 1.3.0 documents read alike.
 */
import { parseXml, XmlError, type XmlNode } from '../../render/xml.ts'
import type { Bbox } from '../../geo/geometry.ts'

export const WMS_VERSIONS = ['1.1.1', '1.3.0'] as const
export type WmsVersion = typeof WMS_VERSIONS[number]

/** The longest capabilities document read: parsing costs ~0.5 s per MiB on the request thread. */
export const CAPABILITIES_MAX_CHARS = 4 * 1024 * 1024
/** Deepest nesting of `Layer` elements followed. */
const MAX_LAYER_DEPTH = 64

export interface CapLayer {
  id: string
  title: string | null
  /** West, south, east, north in degrees; `null` when the document gives none. */
  bbox: Bbox | null
}

/** The stored capabilities, in the original's keys. */
export interface Capcache {
  formats: string[]
  layers: CapLayer[]
  srs: string[]
  urls: { GetMap?: string; GetFeatureInfo?: string }
}

/** Why a document is not capabilities: `kind` says whether it was a WMS exception. */
export class CapabilitiesError extends Error {
  constructor(message: string, readonly kind: 'malformed' | 'exception', readonly code: string | null = null) {
    super(message)
  }
}

/** The element name without its namespace prefix. */
const local = (name: string) => name.slice(name.indexOf(':') + 1)
const kids = (n: XmlNode, name: string) => n.children.filter((c) => local(c.name) === name)
const kid = (n: XmlNode | undefined, name: string) => n?.children.find((c) => local(c.name) === name)
const text = (n: XmlNode | undefined) => n?.text.trim() || null

/** `xlink:href` (or `href`) of an element. */
const href = (n: XmlNode | undefined) => {
  if (!n) return undefined
  const key = Object.keys(n.attrs).find((k) => local(k) === 'href')
  return key ? n.attrs[key] : undefined
}

function numbers(values: Array<string | null | undefined>): Bbox | null {
  const v = values.map((s) => (s === null || s === undefined || s.trim() === '' ? NaN : Number(s)))
  return v.every(Number.isFinite) ? v as Bbox : null
}

/** A layer's own WGS 84 box (§3.2), or `null`. */
function bboxOf(layer: XmlNode, version: WmsVersion): Bbox | null {
  if (version === '1.3.0') {
    const ex = kid(layer, 'EX_GeographicBoundingBox'.toLowerCase())
    if (ex) {
      const b = numbers(['westboundlongitude', 'southboundlatitude', 'eastboundlongitude', 'northboundlatitude'].map((k) => text(kid(ex, k))))
      if (b) return b
    }
    const crs84 = kids(layer, 'boundingbox').find((b) => b.attrs.crs === 'CRS:84')
    return crs84 ? numbers([crs84.attrs.minx, crs84.attrs.miny, crs84.attrs.maxx, crs84.attrs.maxy]) : null
  }
  const ll = kid(layer, 'latlonboundingbox')
  if (ll) {
    const b = numbers([ll.attrs.minx, ll.attrs.miny, ll.attrs.maxx, ll.attrs.maxy])
    if (b) return b
  }
  const bb = kids(layer, 'boundingbox').find((b) => b.attrs.srs === 'EPSG:4326')
  return bb ? numbers([bb.attrs.minx, bb.attrs.miny, bb.attrs.maxx, bb.attrs.maxy]) : null
}

/**
 * The leaf layers under `root`, in document order: a layer with children is replaced by them;
 * a child without a name, title or box takes its parent's. Layers left without a name cannot
 * be asked for and are skipped.
 */
function leafLayers(root: XmlNode, version: WmsVersion): CapLayer[] {
  const out: CapLayer[] = []
  const walk = (n: XmlNode, inherited: CapLayer | undefined, depth: number) => {
    const own: CapLayer = {
      id: text(kid(n, 'name')) ?? inherited?.id ?? '',
      title: text(kid(n, 'title')) ?? inherited?.title ?? null,
      bbox: bboxOf(n, version) ?? inherited?.bbox ?? null,
    }
    const children = kids(n, 'layer')
    if (!children.length || depth >= MAX_LAYER_DEPTH) {
      if (own.id) out.push(own)
      return
    }
    for (const c of children) walk(c, own, depth + 1)
  }
  for (const l of kids(root, 'layer')) walk(l, undefined, 0)
  return out
}

/**
 * The capabilities of `xml`; throws `CapabilitiesError` for anything else (an exception
 * report, HTML, another version, XML that does not parse).
 */
export function parseCapabilities(xml: string): Capcache & { version: WmsVersion } {
  let root: XmlNode
  try {
    root = parseXml(xml, CAPABILITIES_MAX_CHARS)
  } catch (err) {
    if (err instanceof XmlError) throw new CapabilitiesError(`XML that does not parse (${err.message})`, 'malformed')
    throw err
  }
  const name = local(root.name)
  if (name === 'serviceexceptionreport') {
    const ex = kid(root, 'serviceexception')
    throw new CapabilitiesError(ex?.text ?? '', 'exception', ex?.attrs.code ?? null)
  }
  if (name === 'html') throw new CapabilitiesError('an HTML page, not a WMS capabilities document', 'malformed')
  if (name !== 'wmt_ms_capabilities' && name !== 'wms_capabilities') {
    throw new CapabilitiesError(`a <${root.name}> document, not WMS capabilities`, 'malformed')
  }
  const version = root.attrs.version as WmsVersion
  if (!(WMS_VERSIONS as readonly string[]).includes(version)) {
    throw new CapabilitiesError(`capabilities of version '${root.attrs.version ?? ''}'; 1.1.1 and 1.3.0 are supported`, 'malformed')
  }
  const capability = kid(root, 'capability')
  const request = kid(capability, 'request')
  const getMap = kid(request, 'getmap')
  const urlOf = (req: XmlNode | undefined) => href(kid(kid(kid(kid(req, 'dcptype'), 'http'), 'get'), 'onlineresource'))
  const srs = new Set<string>()
  const stack = capability ? [capability] : []
  while (stack.length) {
    const n = stack.pop()!
    for (const c of n.children) {
      const cn = local(c.name)
      if (cn === (version === '1.3.0' ? 'crs' : 'srs')) {
        for (const code of c.text.trim().split(/\s+/)) if (code) srs.add(code)
      } else if (cn === 'layer') stack.push(c)
    }
  }
  const urls: Capcache['urls'] = {}
  const mapUrl = urlOf(getMap)
  const infoUrl = urlOf(kid(request, 'getfeatureinfo'))
  if (mapUrl) urls.GetMap = mapUrl
  if (infoUrl) urls.GetFeatureInfo = infoUrl
  return {
    version,
    formats: getMap ? kids(getMap, 'format').map((f) => f.text.trim()).filter(Boolean) : [],
    layers: capability ? leafLayers(capability, version) : [],
    srs: [...srs],
    urls,
  }
}
