/**
 * @module ingest/feature-check
 * The checks of every feature of an ingest, as the spec and the original's loader say
 * (geometry present and whole, of the layer's type or fixed to it, values printable and in a
 * supported encoding), whatever engine loads the features: SQLite's load calls them on bytes
 * where SQLite holds them (its WASM heap), another engine's on the batches of the source
 * (`GpkgSource.batches`). The verdict is the same: which features are refused, skipped or
 * rebuilt, and the 422 listing up to ten problems.
 */
import { bboxOf } from '../geo/geometry.ts'
import { encodeGpkg } from '../geo/gpkg.ts'
import { ERROR_LIMIT, featureErrors, foreignEncoding, type Problem } from './errors.ts'
import { FixError, fixGeometry, type TargetType } from './geom-fix.ts'
import { FLAW_TEXT, Flaw, Scan, scanGpkg } from './wkb-scan.ts'
import { textProblem } from './encoding.ts'
import type { LoaderOptions } from './vector-plan.ts'

const UTF8 = new TextDecoder('utf-8', { fatal: true })

function ascii(bytes: Uint8Array, at: number, n: number): boolean {
  for (let i = at, end = at + n; i < end; i++) if (bytes[i]! >= 0x80) return false
  return true
}

/**
 * Why the text bytes at `bytes[at, at + n)` cannot be a value (see `textProblem`), read in
 * place: printable ASCII, the common case, never leaves the loop.
 */
function textBytesProblem(bytes: Uint8Array, at: number, n: number): string | undefined {
  for (let i = at, end = at + n; i < end; i++) {
    const b = bytes[i]!
    if ((b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d) continue
    let text: string
    try {
      text = UTF8.decode(bytes.subarray(at, end))
    } catch {
      return textProblem('\uFFFD', false)
    }
    return textProblem(text, false)
  }
  return undefined
}

/** What the checks need of a load's plan. */
export interface CheckPlan {
  file: string
  srs: number
  target: TargetType
  opts: Pick<LoaderOptions, 'fixErrors' | 'skipErrors' | 'skipOtherGeometryTypes'>
  /** A shapefile's encoding that is neither UTF-8 nor CP1251: text outside ASCII is refused at once. */
  foreignEncoding?: string
}

/** The verdict on the features of one load, built feature by feature. */
export class FeatureCheck {
  readonly problems: Problem[] = []
  /** Features left out (`skip_errors`, `skip_other_geometry_types`), by their place in the file. */
  readonly skipped = new Set<number>()
  /** The geometries rebuilt to fit the layer's type: feature, new GeoPackage blob (in the layer's SRS). */
  readonly fixes: Array<[number, Uint8Array]> = []
  readonly #scan = new Scan()
  // The plan's facts the per-feature path reads, as fields (it runs once per feature: no lookups there).
  readonly #foreign: string | undefined
  readonly #kind: number
  readonly #z: boolean

  constructor(readonly plan: CheckPlan) {
    this.#foreign = plan.foreignEncoding
    this.#kind = plan.target.family + (plan.target.multi ? 3 : 0)
    this.#z = plan.target.z
  }

  #refuse(p: Problem & { feature: number }, typeError: boolean): void {
    if (this.plan.opts.skipErrors || (typeError && this.plan.opts.skipOtherGeometryTypes)) this.skipped.add(p.feature)
    else this.problems.push(p)
  }

  /**
   * Checks the text value of `field` at `bytes[at, at + n)`; false when the feature is refused
   * for it. A foreign encoding with text outside ASCII throws at once.
   */
  text(feature: number, field: string, bytes: Uint8Array, at: number, n: number): boolean {
    if (this.#foreign && !ascii(bytes, at, n)) throw foreignEncoding({ file: this.plan.file, feature, field }, this.#foreign)
    const bad = textBytesProblem(bytes, at, n)
    if (!bad) return true
    this.#refuse({ file: this.plan.file, feature, field, message: `the value ${bad}` }, false)
    return false
  }

  /**
   * Checks the geometry of `feature` (a GeoPackage blob, read in place); its box when the
   * feature is kept (a rebuilt one is added to `fixes`), undefined when it is refused.
   */
  geometry(feature: number, blob: Uint8Array | null): ArrayLike<number> | undefined {
    const s = scanGpkg(blob, this.#scan)
    if (s.kind === this.#kind && s.z === this.#z && !s.m && s.flaw === Flaw.None && !s.empty) return s.bbox
    const { file, target, opts, srs } = this.plan
    if (s.empty && s.flaw === Flaw.None) { this.#refuse({ file, feature, message: 'has no geometry' }, false); return undefined }
    if (s.flaw === Flaw.Malformed || s.flaw === Flaw.Unsupported) {
      this.#refuse({ file, feature, message: FLAW_TEXT[s.flaw]! }, s.flaw === Flaw.Unsupported)
      return undefined
    }
    try {
      const g = fixGeometry(blob!.slice(), target, opts.fixErrors)
      this.fixes.push([feature, encodeGpkg(g, srs)])
      return bboxOf(g)
    } catch (err) {
      if (!(err instanceof FixError) && !(err instanceof RangeError)) throw err
      const fe = err instanceof FixError ? err : new FixError(FLAW_TEXT[Flaw.Malformed]!)
      this.#refuse({ file, feature, message: fe.message }, fe.typeError)
      return undefined
    }
  }

  /** Enough problems to answer: the original stops at ten (unless they are all skipped). */
  get full(): boolean {
    return !this.plan.opts.skipErrors && this.problems.length >= ERROR_LIMIT
  }

  /** Throws the original's 422 listing the problems (in the file's order), if there are any. */
  verdict(): void {
    if (this.problems.length) throw featureErrors(this.problems.sort((a, b) => a.feature! - b.feature!).slice(0, ERROR_LIMIT))
  }
}
