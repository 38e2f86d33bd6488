/**
 * @module export/text
 * GeoJSON and CSV written here, a page of features at a time, as GDAL lays them out for the
 * original: GeoJSON with the feature id as `id` and a `crs` member (OGC CRS84 for EPSG:4326); CSV with
 * a byte-order mark, the WKT in a first column `GEOM`, and a `.csvt` of column types beside
 * it when zipped. Dates are written as the API writes them (ISO 8601).
 */
import { toWkt } from '../geo/wkt.ts'
import type { Geometry } from '../geo/geometry.ts'
import type { RowValue, ValueKind } from '../feature/row-values.ts'
import { VALUE_KIND } from '../feature/row-values.ts'
import type { FieldType } from '../feature/types.ts'
import { exportRows, type ExportSource } from './source.ts'

/** A JSON number or text for a value of `kind` (whole numbers past 2^53 come as exact text). */
function jsonValue(v: RowValue, kind: ValueKind): string {
  if (v === null) return 'null'
  if (typeof v === 'string') return kind === 'int' ? v : JSON.stringify(v)
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null'
  return v ? 'true' : 'false'
}

/** The GeoJSON of `src`, piece by piece. */
export async function* geojsonText(src: ExportSource, name: string): AsyncGenerator<string> {
  const kinds = src.columns.map((c) => VALUE_KIND[c.field.datatype])
  const keys = src.columns.map((c) => JSON.stringify(c.name))
  const fidKey = src.fidField === undefined ? undefined : JSON.stringify(src.fidField)
  // GDAL (the original's writer) names EPSG:4326 by its longitude-first OGC name.
  const crsName = src.srs === 4326 ? 'urn:ogc:def:crs:OGC:1.3:CRS84' : `urn:ogc:def:crs:EPSG::${src.srs}`
  const crs = `"crs":{"type":"name","properties":{"name":"${crsName}"}},\n`
  yield `{"type":"FeatureCollection","name":${JSON.stringify(name)},\n${crs}"features":[\n`
  let first = true
  for await (const page of exportRows(src)) {
    let out = ''
    for (const row of page) {
      // Null values are left out, as GDAL writes the original's (an unset field has no member).
      const props = row.values.flatMap((v, i) => (v === null ? [] : [`${keys[i]}:${jsonValue(v, kinds[i]!)}`]))
      if (fidKey) props.push(`${fidKey}:${row.fid}`)
      out += `${first ? '' : ',\n'}{"type":"Feature","id":${row.fid},"properties":{${props.join(',')}},"geometry":${row.geom ? geometryJson(row.geom) : 'null'}}`
      first = false
    }
    yield out
  }
  yield '\n]}\n'
}

function geometryJson(g: Geometry): string {
  return `{"type":"${g.type}","coordinates":${JSON.stringify(g.coordinates)}}`
}

const CSVT: Record<FieldType, string> = {
  INTEGER: 'Integer', BIGINT: 'Integer64', REAL: 'Real', STRING: 'String', DATE: 'Date', TIME: 'Time',
  DATETIME: 'DateTime', BOOLEAN: 'Integer(Boolean)',
}

const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/

/** A CSV cell: quoted when it holds the separator, a quote, a line break, or could pass for a number. */
function csvCell(s: string, sep: string, forceQuote = false): string {
  if (forceQuote || s.includes(sep) || /["\r\n]/.test(s) || s !== s.trim() || NUMERIC.test(s)) return `"${s.replace(/"/g, '""')}"`
  return s
}

/**
 * Text a spreadsheet would run as a formula (OWASP "CSV Injection"): cells starting with
 * `=`, `+`, `-`, `@`, tab or CR get a leading `'` and quotes, so Excel and LibreOffice show
 * them as text. Only text is escaped: numbers (-5 in a REAL field) stay numbers.
 */
const FORMULA_START = /^[=+\-@\t\r]/

function textCell(s: string, sep: string): string {
  return FORMULA_START.test(s) ? csvCell(`'${s}`, sep, true) : csvCell(s, sep)
}

function csvValue(v: RowValue, kind: ValueKind, sep: string): string {
  if (v === null) return ''
  if (typeof v === 'boolean') return v ? '1' : '0'
  if (typeof v === 'number') return String(v)
  return kind === 'string' ? textCell(v, sep) : v
}

/** The CSV of `src`; `sep` is `,` (CSV) or `;` (CSV_MSEXCEL). */
export async function* csvText(src: ExportSource, sep: ',' | ';'): AsyncGenerator<string> {
  const kinds = src.columns.map((c) => VALUE_KIND[c.field.datatype])
  const header = ['GEOM', ...src.columns.map((c) => c.name), ...(src.fidField ? [src.fidField] : [])]
  yield `\uFEFF${header.map((h) => textCell(h, sep)).join(sep)}\n`
  for await (const page of exportRows(src)) {
    let out = ''
    for (const row of page) {
      const cells = [row.geom ? csvCell(toWkt(row.geom), sep, true) : '', ...row.values.map((v, i) => csvValue(v, kinds[i]!, sep))]
      if (src.fidField) cells.push(String(row.fid))
      out += `${cells.join(sep)}\n`
    }
    yield out
  }
}

/** The `.csvt` beside a CSV: one GDAL type name per column. */
export function csvtText(src: ExportSource): string {
  return `${['WKT', ...src.columns.map((c) => CSVT[c.field.datatype]), ...(src.fidField ? ['Integer64'] : [])].join(',')}\n`
}

/** A stream of UTF-8 bytes from text pieces. */
export function textStream(pieces: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const enc = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await pieces.next()
      if (done) controller.close()
      else if (value) controller.enqueue(enc.encode(value))
    },
    async cancel() {
      await pieces.return(undefined)
    },
  })
}
