/**
 * @module classes/webmap/settings
 * The `webmap` member's scalar settings and extents (reference ngw-services §1.2, §1.5), read
 * and written. Extents come in two spellings that clients still mix: the arrays
 * `initial_extent`/`constraining_extent` and the deprecated `extent_*`/`extent_const_*`
 * scalars (ngw-kit and NextGIS Connect read only those). Both are accepted and both are
 * answered; the scalars are applied after the arrays, so they win when both are sent.
 */
import { validationError } from '../../core/error.ts'
import { expectKind, expectObject, expectRef } from '../../core/validate.ts'
import { findSrs } from '../../geo/srs.ts'
import type { AnnotationDefault, Sides, WebMapData } from './types.ts'
import { LEGEND_SYMBOLS, expectEnum, expectRange } from './tree.ts'

const SIDES = ['left', 'bottom', 'right', 'top'] as const
/** Longitude for left/right, latitude for bottom/top. */
const LIMIT = [180, 90, 180, 90]
const WORLD: Sides = [-180, -90, 180, 90]

/**
 * The options a web map may set (5.1+, `webmap/option`), with their defaults, and labels,
 * categories and orders in the original's words (checked against NGW 5.4; HEAD has the same).
 */
export const OPTIONS: Record<string, { label: string; category: string; order: number; default: boolean }> = {
  'webmap.identification_attributes': { label: 'Feature attributes', category: 'identification', order: 0, default: true },
  'webmap.identification_geometry': { label: 'Geometry info', category: 'identification', order: 0, default: false },
  'webmap.hmux': { label: 'Request multiplexing', category: 'miscellaneous', order: 0, default: false },
}
/** All four of the original's categories, the two without options of ours included (its frontend lists them). */
export const OPTION_CATEGORIES = {
  panel: { identity: 'panel', label: 'Panels', order: -80 },
  tool: { identity: 'tool', label: 'Tools', order: -60 },
  identification: { identity: 'identification', label: 'Identification', order: -40 },
  miscellaneous: { identity: 'miscellaneous', label: 'Miscellaneous', order: 100 },
}

/** `[west, south, east, north]` or null; each side within its range. */
function extentOf(v: unknown, path: string): Sides {
  const a = expectKind<unknown[] | null>('array', v, path, true)
  if (a === null) return [null, null, null, null]
  if (a.length !== 4) throw validationError(`Expected an array of 4 numbers [west, south, east, north], got ${a.length} - at \`${path}\``)
  return a.map((x, i) => sideOf(x, `${path}[${i}]`, i)) as Sides
}

function sideOf(v: unknown, path: string, i: number): number | null {
  return expectRange(v, path, -LIMIT[i]!, LIMIT[i]!)
}

/** Applies the extents sent in `m` (arrays first, then scalars) to `d`. */
function applyExtents(m: Record<string, unknown>, d: WebMapData): void {
  if (m.initial_extent !== undefined) d.extent = extentOf(m.initial_extent, '$.webmap.initial_extent')
  if (m.constraining_extent !== undefined) d.extent_const = extentOf(m.constraining_extent, '$.webmap.constraining_extent')
  SIDES.forEach((s, i) => {
    for (const [key, target] of [[`extent_${s}`, d.extent], [`extent_const_${s}`, d.extent_const]] as const) {
      if (m[key] !== undefined) target[i] = sideOf(m[key], `$.webmap.${key}`, i)
    }
  })
}

/** What `applySettings` reads besides the body: whether a resource exists (`bookmark_resource`). */
export type Exists = (id: number) => Promise<boolean>

/** Applies the member's settings (everything but `root_item`) to a copy of `prev`. */
export async function applySettings(m: Record<string, unknown>, prev: WebMapData, exists: Exists): Promise<WebMapData> {
  const d: WebMapData = { ...prev, extent: [...prev.extent], extent_const: [...prev.extent_const], options: { ...prev.options } }
  const P = '$.webmap'
  if (m.title !== undefined) d.title = expectKind<string | null>('str', m.title, `${P}.title`, true)
  if (m.draw_order_enabled !== undefined) d.draw_order_enabled = expectKind<boolean | null>('bool', m.draw_order_enabled, `${P}.draw_order_enabled`, true)
  if (m.editable !== undefined) d.editable = expectKind<boolean>('bool', m.editable, `${P}.editable`)
  if (m.annotation_enabled !== undefined) d.annotation_enabled = expectKind<boolean>('bool', m.annotation_enabled, `${P}.annotation_enabled`)
  if (m.annotation_default !== undefined) {
    d.annotation_default = expectEnum<AnnotationDefault>(['no', 'yes', 'messages'], m.annotation_default, `${P}.annotation_default`)!
  }
  if (m.legend_symbols !== undefined) d.legend_symbols = expectEnum(LEGEND_SYMBOLS, m.legend_symbols, `${P}.legend_symbols`, true)
  if (m.measure_srs !== undefined) {
    const id = m.measure_srs === null ? null : expectRef(m.measure_srs, `${P}.measure_srs`)
    if (id !== null && !findSrs(id)) throw validationError(`Spatial reference system id = ${id} is not known - at \`${P}.measure_srs.id\``)
    d.measure_srs = id
  }
  if (m.bookmark_resource !== undefined) {
    const id = m.bookmark_resource === null ? null : expectRef(m.bookmark_resource, `${P}.bookmark_resource`)
    if (id !== null && !await exists(id)) throw validationError(`Resource id = ${id} does not exist - at \`${P}.bookmark_resource.id\``)
    d.bookmark_resource = id
  }
  if (m.options !== undefined) {
    const o = expectObject(m.options, `${P}.options`)
    for (const [k, v] of Object.entries(o)) {
      if (!OPTIONS[k]) throw validationError(`Unknown web map option '${k}'.`, { location: ['body', 'webmap', 'options', k] })
      d.options[k] = expectKind<boolean>('bool', v, `${P}.options.${k}`)
    }
  }
  applyExtents(m, d)
  return d
}

const whole = (s: Sides) => (s.some((x) => x === null) ? null : [...s])

/**
 * The settings as the original answers them, keys in its order; `root_item` and the bookmark's
 * parent come from the caller. The `extent_*` scalars are never null: NextGIS Connect takes
 * their `min()` before it checks for None (reference §6.2), so an unset side reads as the world's.
 */
export function settingsOut(d: WebMapData) {
  const scalars: Record<string, number | null> = {}
  // The original's order: left, right, bottom, top.
  for (const i of [0, 2, 1, 3]) scalars[`extent_${SIDES[i]}`] = d.extent[i] ?? WORLD[i]!
  for (const i of [0, 2, 1, 3]) scalars[`extent_const_${SIDES[i]}`] = d.extent_const[i] ?? null
  return {
    head: {
      initial_extent: whole(d.extent), constraining_extent: whole(d.extent_const), title: d.title,
      draw_order_enabled: d.draw_order_enabled, editable: d.editable, annotation_enabled: d.annotation_enabled,
      annotation_default: d.annotation_default, legend_symbols: d.legend_symbols,
      measure_srs: d.measure_srs === null ? null : { id: d.measure_srs },
    },
    scalars,
    options: d.options,
  }
}
