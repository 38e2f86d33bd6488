/**
 * @module classes/basemap_layer
 * A basemap for web maps (reference ngw-services §1.9): an XYZ URL template, or a QMS service
 * kept as the JSON text ngw-kit and NextGIS Connect `JSON.parse` (they use its `url`, `z_min`,
 * `z_max` and `epsg`), with attribution and a zoom range. Scope `data`: the member is read with
 * `data.read` (empty without it) and written with `data.write`.
 *
 * Ours besides the original's fields: `outpost_catalogue: {id}` (write only) makes the basemap
 * from a TMS entry of this server's geoservice catalogue (`/api/v1/`): its URL, zoom range and
 * attribution, and the entry as `qms`. Fields sent with it override what it gives.
 */
import { insufficientPermissions, validationError } from '../../core/error.ts'
import { expectKeys, expectKind, expectObject, expectRef } from '../../core/validate.ts'
import type { ClassContext, ClassData, ClassEnv, ClassFactory, Prepared } from '../types.ts'

const CLASS = 'basemap_layer'
const P = `$.${CLASS}`
const FIELDS = ['url', 'qms', 'copyright_text', 'copyright_url', 'z_min', 'z_max'] as const
type Field = typeof FIELDS[number]

interface BasemapData { url: string; qms: string | null; copyright_text: string | null; copyright_url: string | null; z_min: number | null; z_max: number | null }

/** What a catalogue entry gives, read before the write (the catalogue is its own store). */
interface FromCatalogue extends Prepared { fields: Partial<BasemapData> }

const MAX_ZOOM = 30

/** An absolute http(s) URL, or a path of this server, with the tile's `{z}`, `{x}` and `{y}` (or `{-y}`). */
function urlOf(v: unknown): string {
  const s = expectKind<string>('str', v, `${P}.url`)
  const absolute = /^https?:\/\/[^\s/]+/i.test(s) || /^\/[^/\s]/.test(s)
  if (!absolute || !s.includes('{z}') || !s.includes('{x}') || !/\{-?y\}/.test(s)) {
    throw validationError(`Expected an http(s) URL template with {z}, {x} and {y}, got '${s}' - at \`${P}.url\``)
  }
  return s
}

/** JSON text of an object, or null: clients `JSON.parse` it and read its fields (§1.9). */
function qmsOf(v: unknown): string | null {
  const s = expectKind<string | null>('str', v, `${P}.qms`, true)
  if (s === null) return null
  let parsed: unknown
  try { parsed = JSON.parse(s) } catch { parsed = undefined }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw validationError(`Expected the JSON text of an object - at \`${P}.qms\``)
  }
  return s
}

function zoomOf(v: unknown, k: string): number | null {
  const z = expectKind<number | null>('int', v, `${P}.${k}`, true)
  if (z !== null && (z < 0 || z > MAX_ZOOM)) throw validationError(`Expected a zoom level from 0 to ${MAX_ZOOM}, got ${z} - at \`${P}.${k}\``)
  return z
}

const READ: Record<Field, (v: unknown) => unknown> = {
  url: urlOf,
  qms: qmsOf,
  copyright_text: (v) => expectKind<string | null>('str', v, `${P}.copyright_text`, true),
  copyright_url: (v) => expectKind<string | null>('str', v, `${P}.copyright_url`, true),
  z_min: (v) => zoomOf(v, 'z_min'),
  z_max: (v) => zoomOf(v, 'z_max'),
}

/** A QMS TMS URL with its first `{switch:a,b}` resolved to the first choice: XYZ clients know no switch. */
const plainUrl = (url: string) => url.replace(/\{switch:([\w-]+)[^}]*\}/, '$1')

/** The basemap fields of catalogue entry `id`; 422 unless it is a TMS entry. */
async function fromCatalogue(env: ClassEnv, id: number): Promise<Partial<BasemapData>> {
  const entry = env.catalogue ? (await env.catalogue()).index.byId.get(id) : undefined
  const at = `${P}.outpost_catalogue.id`
  if (!entry) throw validationError(`Geoservice id = ${id} is not in this server's catalogue - at \`${at}\``)
  const d = entry.detail
  if (d.type !== 'tms' || typeof d.url !== 'string') throw validationError(`Geoservice id = ${id} is a '${String(d.type)}' service; only TMS services are basemaps - at \`${at}\``)
  const url = plainUrl(d.url)
  const str = (v: unknown) => (typeof v === 'string' ? v : null)
  const int = (v: unknown) => (typeof v === 'number' ? v : null)
  const qms = { id: d.id, guid: d.guid, name: d.name, type: 'tms', epsg: d.epsg ?? 3857, url, z_min: int(d.z_min), z_max: int(d.z_max),
    y_origin_top: d.y_origin_top ?? true, copyright_text: str(d.copyright_text), copyright_url: str(d.copyright_url) }
  return { url, qms: JSON.stringify(qms), copyright_text: qms.copyright_text, copyright_url: qms.copyright_url, z_min: qms.z_min, z_max: qms.z_max }
}

/** Whether the request's user has `data.<permission>` on `id` (no evaluator: the demo's seeding, allowed). */
const may = async (ctx: ClassContext, id: number, permission: string) =>
  !ctx.acl || await ctx.acl.check(ctx.tx.acl, ctx.user, id, 'data', permission) !== false

function apply(ctx: ClassContext, member: unknown, prev: BasemapData | undefined): BasemapData {
  const m = expectObject(member, P)
  expectKeys(m, [...FIELDS, 'outpost_catalogue'], P)
  const given = (ctx.prepared as FromCatalogue | undefined)?.fields ?? {}
  const next = { copyright_text: null, copyright_url: null, z_min: null, z_max: null, qms: null, ...prev, ...given } as BasemapData
  for (const k of FIELDS) if (m[k] !== undefined) (next as unknown as Record<string, unknown>)[k] = READ[k](m[k])
  if (next.url === undefined) throw validationError(`Object missing required field \`url\` - at \`${P}\``)
  if (next.z_min !== null && next.z_max !== null && next.z_min > next.z_max) {
    throw validationError(`z_min (${next.z_min}) must not be greater than z_max (${next.z_max}) - at \`${P}\``)
  }
  return next
}

export const basemapLayer: ClassFactory = (env) => ({
  identity: CLASS,
  label: 'Basemap',
  order: 70,
  category: 'layers_and_styles',
  scopes: ['data', 'resource'],
  interfaces: [],
  members: [CLASS],
  acceptsParent: (p) => p === 'resource_group',

  async prepare(_penv, members): Promise<FromCatalogue | undefined> {
    const m = members[CLASS]
    if (m === null || typeof m !== 'object' || !('outpost_catalogue' in m)) return undefined
    const id = expectRef((m as Record<string, unknown>).outpost_catalogue, `${P}.outpost_catalogue`)
    return { fields: await fromCatalogue(env, id), discard: async () => {}, settle: () => {} }
  },

  create(ctx, _id, members) {
    if (members[CLASS] === undefined) throw validationError(`Object missing required field \`${CLASS}\` - at \`$\``)
    return apply(ctx, members[CLASS], undefined) as unknown as ClassData
  },

  async update(ctx, id, members, data) {
    if (members[CLASS] === undefined) return data
    if (!await may(ctx, id, 'write')) throw insufficientPermissions('write', 'data', id)
    return apply(ctx, members[CLASS], data as unknown as BasemapData) as unknown as ClassData
  },

  async serialize(ctx, id, data) {
    if (!await may(ctx, id, 'read')) return { [CLASS]: {} }
    const d = data as unknown as BasemapData
    return { [CLASS]: Object.fromEntries(FIELDS.map((k) => [k, d[k]])) }
  },

  capabilities: {},
})
