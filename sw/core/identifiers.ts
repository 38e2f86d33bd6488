/**
 * @module core/identifiers
 * The two spellings of the identifiers that name a product. The spec writes `spatialdb`,
 * `engine` and `svc` where the original carries product names (`postgis_connection`,
 * `postgis_layer`, `mapserver_style`, MVT layers `ngw:<id>`), and the original's clients
 * decide what a resource is by those names: GDAL's NGW driver opens a `mapserver_style` as a
 * raster but not an `engine_style`, ngw-kit finds its vector-tile layer as `ngw:<id>`.
 *
 * Inside the backend, and in storage, every name is the spec's. Input in either spelling is
 * made the spec's where it comes in (`specName`, `specMembers`); answers are spelled by the
 * app's setting (`Identifiers`, AppOptions `identifiers`) at the edge: the composite resource
 * objects, the blueprint, error bodies and MVT layer names. Classes never see the original's names.
 */
import { validationError, type ErrorBody } from './error.ts'

/** Which names answers use: the spec's (the default) or the original's (for the original's clients). */
export type IdentifierStyle = 'spec' | 'original'

export const IDENTIFIER_STYLES: readonly IdentifierStyle[] = ['spec', 'original']

/** The spec's class names (each also its class's member key) → the original's. */
const ORIGINAL_OF: Readonly<Record<string, string>> = {
  spatialdb_connection: 'postgis_connection',
  spatialdb_layer: 'postgis_layer',
  engine_style: 'mapserver_style',
}

const SPEC_OF: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(ORIGINAL_OF).map(([s, o]) => [o, s]))

/** The prefix of each resource's MVT layer name (spec §4.9; reference ngw-api §9). */
const MVT_PREFIX: Readonly<Record<IdentifierStyle, string>> = { spec: 'svc:', original: 'ngw:' }

const SPEC_NAMES = Object.keys(ORIGINAL_OF).join('|')
/** A spec name anywhere in free text (an error message); `\b` keeps `engine_style_2` whole. */
const SPEC_IN_TEXT = new RegExp(`\\b(${SPEC_NAMES})\\b`, 'g')
/**
 * An ACL rule naming a class by a spec name, in a composite object's text: the one name there
 * that the serializer does not spell itself (the rules are stored text). A match elsewhere (a
 * resmeta key `identity`) only costs a parse.
 */
const RULE_IDENTITY = new RegExp(`"identity":"(?:${SPEC_NAMES})"`)

/** The spec's spelling of a class or member name sent in either spelling. */
export const specName = (name: string): string => SPEC_OF[name] ?? name

/** The original's spelling of a spec name (the same name where the two agree). */
export const originalName = (spec: string): string => ORIGINAL_OF[spec] ?? spec

/**
 * A request body's top-level members with the original's keys renamed to the spec's
 * (`mapserver_style` → `engine_style`). A body that sends one member in both spellings is
 * refused (422): which of the two was meant cannot be told.
 */
export function specMembers(body: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined
  for (const [original, spec] of Object.entries(SPEC_OF)) {
    if (body[original] === undefined) continue
    if (body[spec] !== undefined) {
      throw validationError(`Member \`${spec}\` was sent twice, also as \`${original}\` (its original name): send one of them - at \`$.${original}\``,
        { location: ['body', original] })
    }
    out ??= { ...body }
    out[spec] = out[original]
    delete out[original]
  }
  return out ?? body
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** How an app spells the names in its answers. */
export class Identifiers {
  readonly style: IdentifierStyle
  /** MVT layer names are this prefix and the resource id. */
  readonly mvtPrefix: string

  constructor(style: IdentifierStyle = 'spec') {
    this.style = style
    this.mvtPrefix = MVT_PREFIX[style]
  }

  get original(): boolean {
    return this.style === 'original'
  }

  /** Class or member name `spec` as answers spell it. */
  name(spec: string): string {
    return this.original ? originalName(spec) : spec
  }

  /** Free text (a message) with the spec's names spelled as answers spell them. */
  text(s: string): string {
    return this.original ? s.replace(SPEC_IN_TEXT, (n) => ORIGINAL_OF[n]!) : s
  }

  /** A class's members (`{engine_style: {…}}`) keyed as answers spell them. */
  members(members: Record<string, unknown>): Record<string, unknown> {
    if (!this.original) return members
    return Object.fromEntries(Object.entries(members).map(([k, v]) => [this.name(k), v]))
  }

  /**
   * The JSON text of a composite resource object or an array of them (GET, listing, search)
   * with the ACL rules' `identity` spelled as answers spell it. The serializer spells
   * `resource.cls` and the member keys already (resource/service `pageOf`); the rules are
   * stored text, so an answer holding a rule for a spec name is parsed and rewritten, any
   * other passed on as it is (a listing of 5,000: 2.2 MB scanned in ~1 ms).
   */
  resourcesText(text: string): string {
    if (!this.original || !RULE_IDENTITY.test(text)) return text
    const value = JSON.parse(text) as unknown
    return JSON.stringify(Array.isArray(value) ? value.map((v) => this.#composite(v)) : this.#composite(value))
  }

  /** `resourcesText` for UTF-8 bytes: passed on as they are unless answers use the original's names. */
  resourcesBytes(bytes: Uint8Array<ArrayBuffer>): string | Uint8Array<ArrayBuffer> {
    return this.original ? this.resourcesText(new TextDecoder().decode(bytes)) : bytes
  }

  /** An error body with the spec's names in its texts and data spelled as answers spell them. */
  errorBody(body: ErrorBody): ErrorBody {
    if (!this.original) return body
    return this.#deep(body) as ErrorBody
  }

  #composite(v: unknown): unknown {
    if (!isObject(v)) return v
    const out: Record<string, unknown> = {}
    for (const [k, m] of Object.entries(v)) {
      if (k === 'resource' && isObject(m)) {
        const r = { ...m }
        if (typeof r.cls === 'string') r.cls = this.name(r.cls)
        if (Array.isArray(r.permissions)) {
          r.permissions = r.permissions.map((rule) => isObject(rule) && typeof rule.identity === 'string' ? { ...rule, identity: this.name(rule.identity) } : rule)
        }
        out.resource = r
      } else {
        // The class member keys; `resmeta`, `social` and the like have no second spelling.
        out[this.name(k)] = m
      }
    }
    return out
  }

  /** Every string in `v` through `text` (error bodies: messages, `data.location`, an echoed class). */
  #deep(v: unknown): unknown {
    if (typeof v === 'string') return this.text(v)
    if (Array.isArray(v)) return v.map((x) => this.#deep(x))
    if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.#deep(x)]))
    return v
  }
}
