/**
 * @module ingest/vector-plan
 * Decides what layer a file becomes, before a feature is written: the loader options the
 * original accepts (with its defaults), the geometry type (given, declared by the file, or
 * found by looking at its features, as the original's `GeomTypeExplorer` does) and the fields
 * with their types. Names a person cannot use are refused here.
 */
import { validationError } from '../core/error.ts'
import { expectKind } from '../core/validate.ts'
import type { FieldType } from '../feature/types.ts'
import type { FixErrors, TargetType } from './geom-fix.ts'
import { featureErrors, foreignEncoding, sourceError } from './errors.ts'
import { textProblem } from './encoding.ts'
import { Kind, Scan, scanGpkg } from './wkb-scan.ts'
import type { GpkgSource } from './vector-convert.ts'
import type { SourceField, SourceLayer } from './vector-source.ts'

/** The original's `LoaderParams` (`vector_layer/ogrloader.py`) plus `source_layer`. */
export interface LoaderOptions {
  fixErrors: FixErrors
  skipErrors: boolean
  skipOtherGeometryTypes: boolean
  castGeometryType: 'POINT' | 'LINESTRING' | 'POLYGON' | null
  castIsMulti: boolean | null
  castHasZ: boolean | null
  fidSource: 'AUTO' | 'SEQUENCE' | 'FIELD'
  fidField: string[]
  sourceLayer?: string
}

function oneOf<T extends string>(m: Record<string, unknown>, key: string, values: readonly T[], fallback: T): T {
  const v = m[key]
  if (v === undefined || v === null) return fallback
  const s = expectKind<string>('str', v, `$.vector_layer.${key}`)
  if (!(values as readonly string[]).includes(s)) {
    throw validationError(`Invalid value '${s}'; expected one of ${values.join(', ')} - at \`$.vector_layer.${key}\``)
  }
  return s as T
}

const optBool = (m: Record<string, unknown>, key: string) =>
  m[key] === undefined || m[key] === null ? null : expectKind<boolean>('bool', m[key], `$.vector_layer.${key}`)

/** Reads the loader options of a `vector_layer` member; 422 on a value of the wrong kind. */
export function loaderOptions(m: Record<string, unknown>): LoaderOptions {
  const fid = m.fid_field
  const fidField = fid === undefined || fid === null ? []
    : typeof fid === 'string' ? fid.split(',').map((s) => s.trim()).filter(Boolean)
      : expectKind<unknown[]>('array', fid, '$.vector_layer.fid_field').map((v, i) => expectKind<string>('str', v, `$.vector_layer.fid_field[${i}]`))
  const opts: LoaderOptions = {
    fixErrors: oneOf(m, 'fix_errors', ['NONE', 'SAFE', 'LOSSY'] as const, 'NONE'),
    skipErrors: optBool(m, 'skip_errors') ?? false,
    skipOtherGeometryTypes: optBool(m, 'skip_other_geometry_types') ?? false,
    castGeometryType: m.cast_geometry_type === undefined || m.cast_geometry_type === null ? null
      : oneOf(m, 'cast_geometry_type', ['POINT', 'LINESTRING', 'POLYGON'] as const, 'POINT'),
    castIsMulti: optBool(m, 'cast_is_multi'),
    castHasZ: optBool(m, 'cast_has_z'),
    fidSource: oneOf(m, 'fid_source', ['AUTO', 'SEQUENCE', 'FIELD'] as const, 'SEQUENCE'),
    fidField,
  }
  if (m.source_layer !== undefined && m.source_layer !== null) opts.sourceLayer = expectKind<string>('str', m.source_layer, '$.vector_layer.source_layer')
  if (opts.skipOtherGeometryTypes && opts.castGeometryType === null) {
    throw validationError("Parameter 'cast_geometry_type' is required with 'skip_other_geometry_types=true'.")
  }
  return opts
}

const FAMILIES = ['POINT', 'LINESTRING', 'POLYGON'] as const
const ALL_TYPES = FAMILIES.flatMap((f) => [f, `MULTI${f}`, `${f}Z`, `MULTI${f}Z`])

/** NGW's type name split into its parts. */
export function targetOf(type: string): TargetType {
  const base = type.replace(/^MULTI/, '').replace(/Z$/, '')
  return { family: (FAMILIES.indexOf(base as never) + 1) as 1 | 2 | 3, multi: type.startsWith('MULTI'), z: type.endsWith('Z') }
}

/** What is known of one feature's geometry while exploring: WKB base kind (1..7), Z, part count. */
export interface Seen { kind: number; z: boolean; parts: number }

const typeName = (kind: number, z: boolean) => (kind >= 1 && kind <= 6
  ? `${kind >= 4 ? 'MULTI' : ''}${FAMILIES[(kind - 1) % 3]}${z ? 'Z' : ''}` : undefined)

/**
 * The layer's geometry type, decided as the original does: the casts narrow the twelve types;
 * one left wins, then the type the file declares; else the features are looked at (`explore`
 * yields them until it returns `undefined`) until one type is left.
 */
export function decideGeometryType(declared: string | null, opts: LoaderOptions, explore: () => Seen | undefined, file: string): string {
  let filter = new Set(ALL_TYPES)
  const keep = (fn: (t: string) => boolean) => { filter = new Set([...filter].filter(fn)) }
  if (opts.castGeometryType) keep((t) => targetOf(t).family === FAMILIES.indexOf(opts.castGeometryType!) + 1)
  if (opts.castIsMulti !== null) keep((t) => targetOf(t).multi === opts.castIsMulti)
  if (opts.castHasZ !== null) keep((t) => targetOf(t).z === opts.castHasZ)
  if (filter.size === 1) return [...filter][0]!
  if (declared && filter.has(declared)) return declared
  let multi = false
  let z = false
  for (let s = explore(); s && filter.size > 1; s = explore()) {
    const { kind } = s
    const name = typeName(kind, s.z)
    if (!name) continue
    if (opts.castGeometryType === null) {
      const family = targetOf(name).family
      keep((t) => targetOf(t).family === family)
    } else if (opts.skipOtherGeometryTypes && !filter.has(name)) continue
    if (opts.castIsMulti === null && !multi && kind >= 4) { multi = true; keep((t) => targetOf(t).multi) }
    if (opts.castHasZ === null && !z && s.z) { z = true; keep((t) => targetOf(t).z) }
  }
  if (opts.castIsMulti === null && !multi && filter.size > 1) keep((t) => !targetOf(t).multi)
  if (opts.castHasZ === null && !z && filter.size > 1) keep((t) => !targetOf(t).z)
  if (filter.size === 1) return [...filter][0]!
  throw sourceError({ file, message: 'could not determine a geometry type. ' + (filter.size === 0
    ? 'The source layer contains no suitable features, or contains features of different geometry types.'
    : 'The layer has no features with geometry: choose a geometry type with cast_geometry_type.') })
}

/** A field of the new layer and the source column it is read from. */
export interface PlannedField { keyname: string; datatype: FieldType; column: number }

const TYPES: Record<string, FieldType> = {
  Integer: 'INTEGER', Integer64: 'BIGINT', Real: 'REAL', String: 'STRING', Date: 'DATE', Time: 'TIME', DateTime: 'DATETIME',
  IntegerList: 'STRING', Integer64List: 'STRING', RealList: 'STRING', StringList: 'STRING',
}

/**
 * The fields of the new layer. `columns` are the source's field names in the order GDAL wrote
 * them after its fid and geometry columns. A field named `id`, a name with a non-printable
 * character and a field type the layer cannot hold (binary) are 422s naming the field.
 */
export function planFields(layer: SourceLayer, file: string, fidField: string | undefined, foreign?: string): PlannedField[] {
  const out: PlannedField[] = []
  layer.fields.forEach((f: SourceField, i) => {
    if (fidField !== undefined && f.name === fidField) return
    if (foreign && /[^\x00-\x7f]/.test(f.name)) throw foreignEncoding({ file, field: f.name }, foreign)
    const bad = textProblem(f.name, true)
    if (bad) throw sourceError({ file, field: f.name, message: `the field name ${bad}.` })
    if (!f.name.trim()) throw sourceError({ file, field: f.name, message: 'a field has an empty name.' })
    if (f.name.toLowerCase() === 'id') {
      throw sourceError({ file, field: f.name, message: "a field named 'id' is not allowed: rename it, or load it as the feature id with fid_source AUTO or FIELD and fid_field id." })
    }
    const datatype = f.subType === 'Boolean' ? 'BOOLEAN' : TYPES[f.type]
    if (!datatype) throw sourceError({ file, field: f.name, message: `fields of type ${f.type} are not supported.` })
    out.push({ keyname: f.name, datatype, column: i + 2 })
  })
  return out
}

/** Yields what exploring needs of each feature's geometry, in reading order. */
export function explorer(src: GpkgSource): { next(): Seen | undefined; close(): void } {
  const geoms = src.geometries()
  const scan = new Scan()
  return {
    next() {
      for (let g = geoms.next(); g !== undefined; g = geoms.next()) {
        const s = scanGpkg(g, scan)
        if (s.kind !== Kind.None && !s.empty) return { kind: s.kind, z: s.z, parts: s.parts }
      }
      return undefined
    },
    close() { geoms.close() },
  }
}

/** The fid column a layer takes its feature ids from (`fid_source` AUTO or FIELD), checked. */
export function fidColumn(conv: GpkgSource, opts: LoaderOptions): string | undefined {
  if (opts.fidSource === 'SEQUENCE') return undefined
  for (const name of opts.fidField) {
    const f = conv.layer.fields.find((x) => x.name.toLowerCase() === name.toLowerCase())
    if (!f || (f.type !== 'Integer' && f.type !== 'Integer64')) continue
    if (!conv.badIds(f.name)) return f.name
    if (opts.fidSource === 'FIELD' && opts.fixErrors === 'NONE') {
      throw featureErrors([{ file: conv.file, field: f.name, message: `field '${f.name}' contains non-unique, empty or out of range values, so it cannot be the feature id.` }])
    }
    return undefined
  }
  if (opts.fidSource === 'FIELD' && opts.fixErrors === 'NONE') {
    throw featureErrors([{ file: conv.file, message: opts.fidField.length
      ? `none of the fields ${opts.fidField.join(', ')} is an integer field present in the file.` : "parameter 'fid_field' is missing." }])
  }
  return undefined
}
