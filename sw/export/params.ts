/**
 * @module export/params
 * The export parameters (reference §8) from a query string, or from the multi-layer POST
 * body turned into one. Feature filters (`intersects`, `ilike`, `like`, `fld_*`, `id`) stay
 * in the parameters: the listing's own `selection` reads them per layer.
 */
import { invalidParameter, parameterRequired, validationError } from '../core/error.ts'
import { isObject } from '../core/http.ts'
import { expectKind, lastValue, queryBool } from '../core/validate.ts'
import { querySrs } from '../feature/query.ts'
import type { EpsgSource } from '../geo/srs.ts'
import { findFormat, EXPORT_FORMATS, type ExportFormat } from './formats.ts'

export interface ExportRequest {
  format: ExportFormat
  /** Output SRS asked for; the format's default when absent. */
  srs: number | undefined
  /** Name of an extra field carrying the feature id. */
  fid: string | undefined
  /** Keynames to export, in this order; all fields when absent. */
  fields: string[] | undefined
  /** Field display names as column names. */
  displayName: boolean
  encoding: string
  zipped: boolean
  /** SRS of `intersects`; the layer's when absent. */
  intersectsSrs: number | undefined
  /** The filters, as the feature listing reads them. */
  filters: URLSearchParams
  /** Without `srs`, keep the layer's SRS even for lon/lat-preferring formats. */
  keepLayerSrs?: boolean
}

/** `zipped` takes `True`/`False` as the spec writes them, and the usual lowercase forms. */
function zippedOf(params: URLSearchParams): boolean {
  const raw = lastValue(params, 'zipped')
  if (raw === undefined) return true
  if (raw === 'True') return true
  if (raw === 'False') return false
  return queryBool(params, 'zipped', true)
}

export async function exportRequest(params: URLSearchParams, epsg: EpsgSource): Promise<ExportRequest> {
  const name = lastValue(params, 'format')
  if (name === undefined) throw parameterRequired('format')
  const format = findFormat(name)
  if (!format) {
    throw invalidParameter('format', `Invalid enum value '${name}'; expected one of ${EXPORT_FORMATS.map((f) => f.id).join(', ')}.`)
  }
  const fid = lastValue(params, 'fid') || undefined
  const fieldsRaw = lastValue(params, 'fields')
  const encoding = lastValue(params, 'encoding') || 'UTF-8'
  if (!/^[A-Za-z0-9_.:-]{1,40}$/.test(encoding)) throw invalidParameter('encoding', `Invalid encoding '${encoding}'.`)
  if (lastValue(params, 'filter') !== undefined) {
    throw validationError('Filter expressions are not supported; use intersects, ilike or fld_* filters.')
  }
  return {
    format,
    srs: await querySrs(params, epsg),
    fid,
    fields: fieldsRaw === undefined ? undefined : fieldsRaw.split(',').filter(Boolean),
    displayName: queryBool(params, 'display_name', false),
    encoding,
    zipped: zippedOf(params),
    intersectsSrs: await querySrs(params, epsg, 'intersects_srs'),
    filters: params,
  }
}

/** One layer of a multi-layer export: its id and the optional output name. */
export interface ExportItem { id: number; name: string | undefined }

/** The multi-layer POST body as query parameters plus the layer list. */
export function postedExport(body: unknown): { params: URLSearchParams; items: ExportItem[] } {
  const o = isObject(body) ? body : expectKind<Record<string, unknown>>('object', body, '$')
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(o)) {
    if (k === 'resources' || v === undefined || v === null) continue
    if (Array.isArray(v)) params.set(k, v.map(String).join(','))
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') params.set(k, String(v))
    else throw validationError(`Unexpected value of \`${k}\` - at \`$.${k}\``)
  }
  if (o.resources === undefined) throw validationError('Object missing required field `resources` - at `$`')
  const list = expectKind<unknown[]>('array', o.resources, '$.resources')
  const items = list.map((r, i) => {
    const item = expectKind<Record<string, unknown>>('object', r, `$.resources[${i}]`)
    const name = item.name === undefined || item.name === null ? undefined : expectKind<string>('str', item.name, `$.resources[${i}].name`)
    return { id: expectKind<number>('int', item.id, `$.resources[${i}].id`), name }
  })
  return { params, items }
}

/** `resources=1,2&name[1]=roads` of the multi-layer GET. */
export function queriedItems(params: URLSearchParams): ExportItem[] {
  const raw = lastValue(params, 'resources')
  if (raw === undefined) throw parameterRequired('resources')
  return raw.split(',').filter(Boolean).map((s) => {
    if (!/^[0-9]+$/.test(s)) throw invalidParameter('resources', `Invalid integer value '${s}'.`)
    return { id: Number(s), name: lastValue(params, `name[${s}]`) }
  })
}

/** An output name must be a plain file name (the original: `basename(name) == name`). */
export function checkItems(items: ExportItem[]): void {
  if (!items.length) throw validationError('At least one resource is required - at `resources`')
  for (const it of items) {
    if (it.name !== undefined && (it.name === '' || /[/\\]/.test(it.name) || it.name === '.' || it.name === '..')) {
      throw validationError(`File name parameter '${it.name}' is not valid.`)
    }
  }
}
