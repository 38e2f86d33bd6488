/**
 * @module ingest/errors
 * Why a file cannot become a layer. Every one is a 422 ValidationError that names the file,
 * and the feature (its 1-based number in reading order, as the original counts) and the field
 * where there is one, in words a person can act on.
 */
import { ApiError, validationError } from '../core/error.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'

/** Where in a file a problem is. */
export interface ProblemPlace {
  file: string
  /** 1-based feature number in the order the file lists them. */
  feature?: number
  field?: string
}

export interface Problem extends ProblemPlace { message: string }

/** The original stops collecting after this many feature errors. */
export const ERROR_LIMIT = 10

function describe(p: Problem): string {
  const where = [p.file, p.feature !== undefined ? `feature #${p.feature}` : '', p.field !== undefined ? `field '${p.field}'` : '']
  return `${where.filter(Boolean).join(', ')}: ${p.message}`
}

/** One problem with the file as a whole (or with one named field). */
export function sourceError(p: Problem, extra: Record<string, unknown> = {}): ApiError {
  const data: Record<string, unknown> = { file: p.file, ...extra }
  if (p.feature !== undefined) data.feature = p.feature
  if (p.field !== undefined) data.field = p.field
  return validationError(describe(p), data)
}

/**
 * Problems found in features: the first is the message, all of them (up to `ERROR_LIMIT`)
 * are listed in `detail` (as the original does) and in `data.errors`.
 */
export function featureErrors(problems: Problem[]): ApiError {
  const first = problems[0]!
  const err = sourceError(first, { errors: problems.map((p) => ({ feature: p.feature, field: p.field, message: p.message })) })
  return new ApiError(422, 'Validation error', { message: problems.length > 1
    ? `${describe(first)} (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''}, see detail)` : describe(first),
  detail: problems.map((p) => `* ${describe(p)}`).join('\n'), data: err.opts.data, exception: VALIDATION })
}

/**
 * A shapefile that names an encoding other than UTF-8 or CP1251 and has text outside ASCII
 * (in a field name, or in feature `place.feature`'s field `place.field`); pure ASCII reads the
 * same in every encoding, so such a file is refused only where it matters.
 */
export const foreignEncoding = (place: ProblemPlace, named: string) =>
  sourceError({ ...place, message: `the shapefile's encoding is ${named} (from its .cpg or DBF header) and it has text outside ASCII; only UTF-8 and CP1251 are supported. Convert it, or upload it with encoding CP1251 or UTF-8 if the .cpg is wrong.` },
  { encoding: named })

/** The original's message when no GDAL driver reads the bytes. */
export const gdalOpenFailed = (file: string, detail?: string) =>
  new ApiError(422, 'Validation error', { message: 'GDAL library failed to open file.', detail,
    data: { file, name: file }, exception: VALIDATION })

/**
 * An upload that would expand past one of `ingest/limits` (`limit`: which one): 413 as for an
 * upload over the size limit, with the limit and the file's value in `data`.
 */
export const expansionTooLarge = (file: string, limit: string, value: number, max: number, message: string) =>
  new ApiError(413, 'Uploaded file too large', { message: `${file}: ${message}`,
    data: { file, limit, value, max }, exception: 'nextgisweb.file_upload.api.UploadedFileTooLarge' })
