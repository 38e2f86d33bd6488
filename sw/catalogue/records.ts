/**
 * @module catalogue/records
 * The catalogue's record shapes (reference §5.1, §8.1, §9.1, §10) and the checks an import
 * passes through. Records are kept as the detail serializer emits them, keys in its order,
 * so that serving them is copying them.
 */
import { fromBase64 } from '../core/bytes.ts'
import { validationError } from '../core/error.ts'
import { isObject, jsonType } from '../core/http.ts'
import { envelopeEwkt, GeometryError, parseGeometry } from './geometry.ts'
import { decodeRgba } from '../image/png.ts'

export const SERVICE_TYPES = ['tms', 'wms', 'wfs', 'geojson'] as const
export type ServiceType = (typeof SERVICE_TYPES)[number]
export const STATUSES = ['works', 'problematic', 'failed'] as const

export type Detail = Record<string, unknown>

/** Keys of a list item, in order (reference §5.1). */
export const LIST_KEYS = ['id', 'guid', 'name', 'desc', 'type', 'epsg', 'icon', 'submitter', 'created_at', 'updated_at',
  'cumulative_status', 'extent'] as const

const COMMON = ['guid', 'name', 'desc', 'type', 'epsg', 'license_name', 'license_url', 'copyright_text', 'copyright_url',
  'terms_of_use_url', 'created_at', 'updated_at', 'source', 'source_url', 'extent', 'boundary', 'boundary_area']
const TYPE_BLOCK: Record<ServiceType, string[]> = {
  tms: ['z_min', 'z_max', 'y_origin_top'],
  wms: ['url', 'params', 'layers', 'turn_over', 'format'],
  wfs: ['url', 'layer'],
  geojson: ['url'],
}
const TAIL = ['icon', 'submitter', 'last_status']

/** Detail keys of a service of `type`, in the serializer's order (reference §8.1). */
export function detailKeys(type: ServiceType): string[] {
  return ['id', 'cumulative_status', ...(type === 'tms' ? ['url', 'alt_urls', 'origin_url'] : []), ...COMMON, ...TYPE_BLOCK[type], ...TAIL]
}

export const STATUS_KEYS = ['id', 'check_at', 'check_duration', 'cumulative_status', 'http_code', 'http_response',
  'error_type', 'error_text', 'geoservice'] as const

export const WMS_FORMATS = ['image/png', 'image/png8', 'image/png24', 'image/png32', 'image/gif', 'image/bmp',
  'image/jpeg', 'image/tiff', 'image/tiff8', 'image/geotiff', 'image/geotiff8', 'image/svg+xml']

/**
 * `alt_urls` from a stored TMS URL, bug-compatible with the original (reference §8.2): the
 * first `{switch:…}` together with the word characters and hyphens glued to it is replaced
 * by each option, so `tile-{switch:a,b}.x.org` gives `a.x.org`. Clients that care use
 * `origin_url` and expand the switch themselves.
 */
export function altUrls(originUrl: string): string[] {
  const m = /[\w-]*\{switch:([\w,]+)\}[\w-]*/.exec(originUrl)
  if (!m) return []
  return m[1]!.split(',').map((opt) => originUrl.slice(0, m.index) + opt + originUrl.slice(m.index + m[0].length))
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

type Kind = 'str' | 'int' | 'float' | 'bool' | 'array'

class Checker {
  constructor(private o: Record<string, unknown>, private path: (string | number)[]) {}

  fail(key: string, message: string): never {
    const loc = [...this.path, key]
    throw validationError(`${message} - at \`$.${loc.join('.')}\``, { location: ['body', ...loc] })
  }

  get(key: string, kind: Kind, opts: { nullable?: boolean; fallback?: unknown; required?: boolean } = {}): unknown {
    const v = this.o[key]
    if (v === undefined) {
      if (opts.required) this.fail(key, `Object missing required field \`${key}\``)
      return opts.fallback !== undefined ? opts.fallback : null
    }
    if (v === null && opts.nullable) return null
    const ok = kind === 'str' ? typeof v === 'string'
      : kind === 'int' ? typeof v === 'number' && Number.isInteger(v)
        : kind === 'float' ? typeof v === 'number' && Number.isFinite(v)
          : kind === 'bool' ? typeof v === 'boolean' : Array.isArray(v)
    if (!ok) this.fail(key, `Expected \`${opts.nullable ? `${kind} | null` : kind}\`, got \`${jsonType(v)}\``)
    return v
  }

  has(key: string): boolean { return this.o[key] !== undefined && this.o[key] !== null }

  str(key: string, nullable = true) { return this.get(key, 'str', { nullable, required: !nullable }) as string | null }
  int(key: string) { return this.get(key, 'int', { nullable: true }) as number | null }
}

/**
 * A URL that would run script where a page shows it as a link or loads it (`javascript:`,
 * `vbscript:`, `data:`). Browsers drop ASCII whitespace and control characters from URLs, so
 * `java\tscript:` counts too. Free text in link fields (the sample data has some) passes.
 */
function checkUrl(c: Checker, key: string, v: string | null): void {
  if (v === null) return
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(v.replace(/[\x00-\x20\x7f]/g, '').toLowerCase())?.[1]
  if (scheme === 'javascript' || scheme === 'vbscript' || scheme === 'data') c.fail(key, `A '${scheme}:' URL is not allowed`)
}

function checkTime(c: Checker, key: string, v: string | null): void {
  if (v !== null && !ISO.test(v)) c.fail(key, `Invalid datetime '${v}'`)
}

function checkGeometry(c: Checker, key: string, v: string | null): void {
  if (v === null) return
  try { parseGeometry(v) } catch (err) {
    c.fail(key, `Invalid geometry: ${err instanceof GeometryError ? err.message : 'unreadable'}`)
  }
}

/** What an import carries, already decoded from its JSON body. */
export interface ImportedIcon { id: number; guid: string; name: string; png: Uint8Array }
export interface CatalogueData {
  services: Detail[]
  statuses: Detail[]
  icons: ImportedIcon[]
  /** The default icon as PNG; `undefined` keeps the built-in one. */
  defaultIcon?: Uint8Array
}

function base64(c: Checker, key: string, v: string): Uint8Array {
  try {
    return fromBase64(v)
  } catch {
    c.fail(key, 'Invalid base64')
  }
}

function checkPng(c: Checker, key: string, png: Uint8Array): void {
  try { decodeRgba(png) } catch { c.fail(key, 'Not a readable PNG image') }
}

/** One service record normalised to its type's key set and order, or a 422 naming the field. */
function normaliseService(o: unknown, i: number, iconIds: Set<number>): Detail {
  const path = ['geoservices', i]
  if (!isObject(o)) throw validationError(`Expected \`object\`, got \`${jsonType(o)}\` - at \`$.geoservices.${i}\``, { location: ['body', ...path] })
  const c = new Checker(o, path)
  const type = c.get('type', 'str', { required: true }) as ServiceType
  if (!SERVICE_TYPES.includes(type)) c.fail('type', `Invalid type '${type}'`)
  const id = c.get('id', 'int', { required: true }) as number
  if (id < 1) c.fail('id', 'Expected `int` >= 1')
  const v: Detail = {}
  v.id = id
  v.guid = c.str('guid', false)
  if (!UUID.test(v.guid as string)) c.fail('guid', 'Expected a lower-case UUID')
  v.name = c.str('name', false)
  if (!(v.name as string).trim() || (v.name as string).length > 100) c.fail('name', 'Expected a name of 1 to 100 characters')
  v.desc = c.str('desc')
  v.type = type
  v.epsg = c.int('epsg')
  for (const k of ['license_name', 'license_url', 'copyright_text', 'copyright_url', 'terms_of_use_url', 'source', 'source_url']) v[k] = c.str(k)
  for (const k of ['license_url', 'copyright_url', 'terms_of_use_url', 'source_url']) checkUrl(c, k, v[k] as string | null)
  v.created_at = c.str('created_at', false); checkTime(c, 'created_at', v.created_at as string)
  v.updated_at = c.str('updated_at'); checkTime(c, 'updated_at', v.updated_at as string | null)
  v.boundary = c.str('boundary'); checkGeometry(c, 'boundary', v.boundary as string | null)
  v.extent = c.str('extent'); checkGeometry(c, 'extent', v.extent as string | null)
  // The original recomputes the extent from the boundary on every save.
  if (v.extent === null && v.boundary !== null) v.extent = envelopeEwkt(parseGeometry(v.boundary as string))
  v.boundary_area = c.get('boundary_area', 'float', { nullable: true })
  v.icon = c.int('icon')
  if (v.icon !== null && !iconIds.has(v.icon as number)) c.fail('icon', `Unknown icon ${v.icon}`)
  v.submitter = c.str('submitter')
  if (type === 'tms') {
    const origin = (c.get('origin_url', 'str', { nullable: true }) as string | null) ?? (c.get('url', 'str', { required: true }) as string)
    checkUrl(c, c.has('origin_url') ? 'origin_url' : 'url', origin)
    v.origin_url = origin
    v.url = origin
    v.alt_urls = altUrls(origin)
    v.z_min = c.int('z_min')
    v.z_max = c.int('z_max')
    v.y_origin_top = c.get('y_origin_top', 'bool', { fallback: false })
  } else {
    v.url = c.get('url', 'str', { required: true })
    checkUrl(c, 'url', v.url as string)
    if (type === 'wms') {
      v.params = c.str('params')
      v.layers = c.str('layers')
      v.turn_over = c.get('turn_over', 'bool', { fallback: false })
      v.format = c.str('format')
      if (v.format !== null && !WMS_FORMATS.includes(v.format as string)) c.fail('format', `Invalid format '${v.format}'`)
    }
    if (type === 'wfs') v.layer = c.str('layer', false)
  }
  v.cumulative_status = null
  v.last_status = null
  const out: Detail = {}
  for (const k of detailKeys(type)) out[k] = v[k] === undefined ? null : v[k]
  return out
}

function normaliseStatus(o: unknown, i: number, serviceIds: Set<number>): Detail {
  const path = ['geoservice_status', i]
  if (!isObject(o)) throw validationError(`Expected \`object\`, got \`${jsonType(o)}\` - at \`$.geoservice_status.${i}\``, { location: ['body', ...path] })
  const c = new Checker(o, path)
  const out: Detail = {
    id: c.get('id', 'int', { required: true }),
    check_at: c.str('check_at', false),
    check_duration: c.get('check_duration', 'float', { nullable: true }),
    cumulative_status: c.str('cumulative_status', false),
    http_code: c.int('http_code'),
    http_response: c.str('http_response'),
    error_type: c.str('error_type'),
    error_text: c.str('error_text'),
    geoservice: c.get('geoservice', 'int', { required: true }),
  }
  checkTime(c, 'check_at', out.check_at as string)
  if (!(STATUSES as readonly string[]).includes(out.cumulative_status as string)) c.fail('cumulative_status', `Invalid status '${out.cumulative_status}'`)
  if (!serviceIds.has(out.geoservice as number)) c.fail('geoservice', `Unknown geoservice ${out.geoservice}`)
  return out
}

function uniqueIds(list: Detail[] | ImportedIcon[], what: string): Set<number> {
  const ids = new Set<number>()
  list.forEach((r, i) => {
    const id = r.id as number
    if (ids.has(id)) throw validationError(`Duplicate id ${id} - at \`$.${what}.${i}.id\``, { location: ['body', what, i, 'id'] })
    ids.add(id)
  })
  return ids
}

/**
 * Checks and normalises an import body `{geoservices, icons?, geoservice_status?, default_icon?}`
 * (icons carry their PNG as base64 `content`). Any fault is a 422 naming the record and field;
 * nothing is stored until everything passed.
 */
export function readImport(body: Record<string, unknown>): CatalogueData {
  for (const k of Object.keys(body)) {
    if (!['geoservices', 'icons', 'geoservice_status', 'default_icon'].includes(k)) {
      throw validationError(`Object contains unknown field \`${k}\` - at \`$\``, { location: ['body', k] })
    }
  }
  const top = new Checker(body, [])
  const rawIcons = top.get('icons', 'array', { fallback: [] }) as unknown[]
  const icons = rawIcons.map((o, i): ImportedIcon => {
    if (!isObject(o)) throw validationError(`Expected \`object\`, got \`${jsonType(o)}\` - at \`$.icons.${i}\``, { location: ['body', 'icons', i] })
    const c = new Checker(o, ['icons', i])
    const id = c.get('id', 'int', { required: true }) as number
    const guid = c.str('guid', false)!
    const name = c.str('name', false)!
    const png = base64(c, 'content', c.str('content', false)!)
    checkPng(c, 'content', png)
    return { id, guid, name, png }
  })
  const services = top.get('geoservices', 'array', { required: true }) as unknown[]
  const statuses = top.get('geoservice_status', 'array', { fallback: [] }) as unknown[]
  const checked = normaliseCatalogue(services, statuses, icons)
  const rawDefault = top.str('default_icon')
  let defaultIcon: Uint8Array | undefined
  if (rawDefault !== null) {
    defaultIcon = base64(top, 'default_icon', rawDefault)
    checkPng(top, 'default_icon', defaultIcon)
  }
  return { ...checked, defaultIcon }
}

/** Checks records against each other (ids, names, icons, services of checks) and normalises them. */
export function normaliseCatalogue(rawServices: unknown[], rawStatuses: unknown[], icons: ImportedIcon[]): CatalogueData {
  const iconIds = uniqueIds(icons, 'icons')
  const services = rawServices.map((o, i) => normaliseService(o, i, iconIds))
  const serviceIds = uniqueIds(services, 'geoservices')
  const names = new Set<string>()
  services.forEach((s, i) => {
    if (names.has(s.name as string)) throw validationError(`Duplicate name '${s.name}' - at \`$.geoservices.${i}.name\``, { location: ['body', 'geoservices', i, 'name'] })
    names.add(s.name as string)
  })
  const statuses = rawStatuses.map((o, i) => normaliseStatus(o, i, serviceIds))
  uniqueIds(statuses, 'geoservice_status')
  applyStatuses(services, statuses)
  return { services, statuses, icons }
}

/** Sets each service's `last_status` and `cumulative_status` from its newest check (README of the data). */
export function applyStatuses(services: Detail[], statuses: Detail[]): void {
  const newest = new Map<number, Detail>()
  for (const s of statuses) {
    const cur = newest.get(s.geoservice as number)
    if (!cur || timeKey(s.check_at as string) > timeKey(cur.check_at as string)
      || (timeKey(s.check_at as string) === timeKey(cur.check_at as string) && (s.id as number) > (cur.id as number))) {
      newest.set(s.geoservice as number, s)
    }
  }
  for (const svc of services) {
    const s = newest.get(svc.id as number)
    svc.cumulative_status = s ? s.cumulative_status : null
    svc.last_status = s ? s.id : null
  }
}

/** A number that orders ISO timestamps by time, to the microsecond; null is +Infinity. */
export function timeKey(iso: string | null): number {
  if (iso === null) return Infinity
  const ms = Date.parse(iso)
  const frac = /\.(\d{1,6})/.exec(iso)?.[1] ?? ''
  const micro = Number(frac.padEnd(6, '0').slice(3) || 0)
  return ms * 1000 + micro
}
