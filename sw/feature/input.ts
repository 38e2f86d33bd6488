/**
 * @module feature/input
 * Feature write bodies (reference §5.5) parsed into `FeatureInput`s: geometry from WKT or
 * GeoJSON, checked and reprojected into the layer's system; attribute values in their
 * canonical form; the extensions. Throws 422 naming the problem's path.
 */
import { validationError } from '../core/error.ts'
import { expectKind, expectObject } from '../core/validate.ts'
import { isObject } from '../core/http.ts'
import { bboxOf, bboxProblem, invalidReason, layerTypeOf, type Geometry } from '../geo/geometry.ts'
import { parseWkt } from '../geo/wkt.ts'
import { reproject, UnknownSrsError } from '../geo/reproject.ts'
import { toColumn, ValueError } from './values.ts'
import { badFieldValue, geometryNotValid, geometryTypeMismatch, unknownSrs } from './errors.ts'
import type { FeatureInput, Field, LayerMeta } from './types.ts'

/** How write bodies are read (query parameters of the write request). */
export interface WriteOptions {
  /** SRS of the input geometry; `undefined` = the layer's. */
  srs: number | undefined
  geomFormat: 'wkt' | 'geojson'
  /** `geom: null` clears the geometry only with `geom_null=true`. */
  geomNull: boolean
}

const NO_FIELDS: readonly Field[] = []
const GEOJSON_TYPES = new Set(['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon'])

/** `at` is the path of the feature body; errors name its `geom`. */
function parseGeom(v: unknown, meta: LayerMeta, opts: WriteOptions, at: string): Geometry {
  const path = () => `${at}.geom`
  let g: Geometry
  if (typeof v === 'string' && opts.geomFormat === 'wkt') {
    try {
      g = parseWkt(v)
    } catch (err) {
      throw geometryNotValid((err as Error).message, path())
    }
  } else if (isObject(v) && (opts.geomFormat === 'geojson' || typeof v.type === 'string')) {
    if (!GEOJSON_TYPES.has(v.type as string) || !Array.isArray(v.coordinates)) {
      throw geometryNotValid(`unsupported GeoJSON geometry`, path())
    }
    g = v as unknown as Geometry
    const reason = invalidReason(g)
    if (reason) throw geometryNotValid(reason, path())
  } else {
    throw geometryNotValid(`expected ${opts.geomFormat === 'wkt' ? 'a WKT string' : 'a GeoJSON geometry'}`, path())
  }
  const type = layerTypeOf(g)
  if (type !== meta.geometryType) throw geometryTypeMismatch(type, meta.geometryType, path())
  if (opts.srs !== undefined && opts.srs !== meta.srs) {
    try {
      g = reproject(g, opts.srs, meta.srs)
    } catch (err) {
      if (err instanceof UnknownSrsError) throw unknownSrs(err.srsId, 'srs')
      throw err
    }
    if (invalidReason(g)) throw geometryNotValid(`the geometry cannot be projected to EPSG:${meta.srs}`, path())
  }
  return g
}

/** Parses one feature body (`{geom, fields, extensions}`); throws 422 naming the problem. */
export function parseInput(raw: unknown, meta: LayerMeta, opts: WriteOptions, path: string): FeatureInput {
  const body = isObject(raw) ? raw : expectObject(raw, path)
  const input: FeatureInput = { fields: NO_FIELDS, values: [] }
  if (body.geom !== undefined) {
    if (body.geom === null) {
      if (opts.geomNull) { input.geom = null; input.bbox = null }
    } else {
      const g = parseGeom(body.geom, meta, opts, path)
      input.geom = g
      input.bbox = bboxOf(g)
      const far = bboxProblem(input.bbox)
      if (far) throw geometryNotValid(far, `${path}.geom`)
    }
  }
  if (body.fields !== undefined && body.fields !== null) {
    const fields = isObject(body.fields) ? body.fields : expectObject(body.fields, `${path}.fields`)
    let given: Field[] | undefined
    meta.fields.forEach((f, i) => {
      if (!(f.keyname in fields)) { // unknown keynames are ignored, as the original does
        given ??= meta.fields.slice(0, i)
        return
      }
      try {
        input.values.push(toColumn(f.datatype, fields[f.keyname]))
      } catch (err) {
        if (err instanceof ValueError) throw badFieldValue(f.keyname, err.message, `${path}.fields.${f.keyname}`)
        throw err
      }
      given?.push(f)
    })
    // Inputs that set every field share the layer's list: the writer groups them by it.
    input.fields = given ?? meta.fields
  }
  if (body.extensions !== undefined && body.extensions !== null) {
    const ext = expectObject(body.extensions, `${path}.extensions`)
    if (ext.description !== undefined) {
      input.description = expectKind<string | null>('str', ext.description, `${path}.extensions.description`, true)
    }
    if (ext.attachment !== undefined) {
      input.attachment = ext.attachment === null ? null
        : expectKind<unknown[]>('array', ext.attachment, `${path}.extensions.attachment`)
          .map((a, i) => expectObject(a, `${path}.extensions.attachment[${i}]`))
    }
  }
  return input
}

/** One item of a batch PATCH: a delete, or a create (no id) or a change. */
export type BatchItem = { id: number; del: true } | { id: number | undefined; input: FeatureInput }

/**
 * A batch PATCH body, every item parsed before anything is written: one bad item fails the
 * whole batch (reference §5.5).
 */
export function parseBatch(body: unknown, meta: LayerMeta, opts: WriteOptions): BatchItem[] {
  return expectKind<unknown[]>('array', body, '$').map((raw, i): BatchItem => {
    const path = `$[${i}]`
    const item = isObject(raw) ? raw : expectKind<Record<string, unknown>>('object', raw, path)
    const id = item.id === undefined || item.id === null ? undefined : expectKind<number>('int', item.id, `${path}.id`)
    if (item.delete === true) {
      if (id === undefined) throw validationError(`Deleting needs an id - at \`${path}\``)
      return { id, del: true }
    }
    return { id, input: parseInput(item, meta, opts, path) }
  })
}

/** The ids of a DELETE body `[{id}, …]`. */
export function parseIds(body: unknown): number[] {
  return expectKind<unknown[]>('array', body, '$').map((item, i) => {
    const o = expectKind<Record<string, unknown>>('object', item, `$[${i}]`)
    return expectKind<number>('int', o.id, `$[${i}].id`)
  })
}
