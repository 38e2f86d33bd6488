/**
 * @module classes/webmap/tree
 * The web map's `root_item` tree (reference ngw-services §1.3): parsed and checked in shape
 * here (pure); whether each layer's style exists and may be read is `access.ts`'s, as it reads
 * the tree's rows. Writing `root_item` replaces the whole tree, as the original.
 *
 * Where the original answers 500 we answer 422 (an unknown `layer_adapter`, §1.4). Where it
 * silently rewrites, we do the same: an exclusive group keeps its first enabled direct child
 * enabled and turns the later ones off (HEAD's rule).
 */
import { validationError } from '../../core/error.ts'
import { expectKeys, expectKind, expectObject } from '../../core/validate.ts'
import type { GroupItem, Item, LayerAdapter, LayerItem, LegendSymbols } from './types.ts'

const ADAPTERS: readonly LayerAdapter[] = ['image', 'tile']
export const LEGEND_SYMBOLS: readonly LegendSymbols[] = ['expand', 'collapse', 'disable']

/** What a client may send back of what it read: the read-only `style_parent_id` and the derived `layer_opacity` included. */
const LAYER_KEYS = ['item_type', 'display_name', 'layer_style_id', 'style_parent_id', 'layer_adapter', 'layer_enabled',
  'layer_identifiable', 'layer_transparency', 'layer_opacity', 'layer_min_scale_denom', 'layer_max_scale_denom',
  'legend_symbols', 'draw_order_position']
const GROUP_KEYS = ['item_type', 'display_name', 'group_expanded', 'group_enabled', 'group_exclusive', 'children']

/** Items deeper than this are refused: a tree is for people, and the walk is recursive. */
const MAX_DEPTH = 32

/** One of `allowed` (or null when `nullable`), else the original's enum message. */
export function expectEnum<T extends string>(allowed: readonly T[], v: unknown, path: string, nullable = false): T | null {
  const s = expectKind<string | null>('str', v, path, nullable)
  if (s === null) return null
  if (!(allowed as readonly string[]).includes(s)) {
    throw validationError(`Invalid enum value '${s}' (expected one of ${allowed.map((a) => `'${a}'`).join(', ')}) - at \`${path}\``)
  }
  return s as T
}

/** A number (or null) within `[min, max]`; `open` excludes `min`. */
export function expectRange(v: unknown, path: string, min: number, max: number, open = false): number | null {
  const n = expectKind<number | null>('float', v, path, true)
  if (n !== null && ((open ? n <= min : n < min) || n > max)) {
    const upper = max === Number.MAX_VALUE ? '' : ` and <= ${max}`
    throw validationError(`Expected a number ${open ? '>' : '>='} ${min}${upper}, got ${n} - at \`${path}\``)
  }
  return n
}

const opt = <T>(v: unknown, fallback: T, read: (v: unknown) => T): T => (v === undefined ? fallback : read(v))

/** Rounded to 1e-9: 100 - 0.7 * 100 is 30.000000000000004 in binary, and a map's opacity is never that fine. */
const tidy = (n: number) => Math.round(n * 1e9) / 1e9

function parseLayer(m: Record<string, unknown>, path: string, nextId: () => number): LayerItem {
  expectKeys(m, LAYER_KEYS, path)
  for (const k of ['display_name', 'layer_style_id', 'layer_adapter']) {
    if (m[k] === undefined) throw validationError(`Object missing required field \`${k}\` - at \`${path}\``)
  }
  let transparency = opt(m.layer_transparency, null, (v) => expectRange(v, `${path}.layer_transparency`, 0, 100))
  // `layer_opacity` wins when both are sent (reference §1.3); only the transparency is kept.
  const opacity = opt<number | null | undefined>(m.layer_opacity, undefined, (v) => expectRange(v, `${path}.layer_opacity`, 0, 1))
  if (opacity !== undefined) transparency = opacity === null ? null : tidy((1 - opacity) * 100)
  const scale = (k: string) => opt(m[k], null, (v) => expectRange(v, `${path}.${k}`, 0, Number.MAX_VALUE, true))
  const minScale = scale('layer_min_scale_denom')
  const maxScale = scale('layer_max_scale_denom')
  // `min` is the zoomed-out limit, the larger number: the layer shows for max ≤ scale ≤ min (§1.3).
  if (minScale !== null && maxScale !== null && minScale < maxScale) {
    throw validationError(`layer_min_scale_denom (${minScale}) is the zoomed-out limit and must not be smaller than layer_max_scale_denom (${maxScale}) - at \`${path}\``)
  }
  return {
    id: nextId(), item_type: 'layer',
    display_name: expectKind<string>('str', m.display_name, `${path}.display_name`),
    layer_style_id: expectKind<number>('int', m.layer_style_id, `${path}.layer_style_id`),
    layer_adapter: expectEnum(ADAPTERS, m.layer_adapter, `${path}.layer_adapter`)!,
    layer_enabled: opt(m.layer_enabled, false, (v) => expectKind<boolean>('bool', v, `${path}.layer_enabled`)),
    layer_identifiable: opt(m.layer_identifiable, true, (v) => expectKind<boolean>('bool', v, `${path}.layer_identifiable`)),
    layer_transparency: transparency,
    layer_min_scale_denom: minScale,
    layer_max_scale_denom: maxScale,
    legend_symbols: opt(m.legend_symbols, null, (v) => expectEnum(LEGEND_SYMBOLS, v, `${path}.legend_symbols`, true)),
    draw_order_position: opt(m.draw_order_position, null, (v) => expectKind<number | null>('int', v, `${path}.draw_order_position`, true)),
  }
}

function parseChildren(v: unknown, path: string, depth: number, nextId: () => number): Item[] {
  if (v === undefined) return []
  const list = expectKind<unknown[]>('array', v, `${path}.children`)
  if (depth >= MAX_DEPTH) throw validationError(`The tree is deeper than ${MAX_DEPTH} levels - at \`${path}.children\``)
  return list.map((c, i) => parseItem(c, `${path}.children[${i}]`, depth + 1, nextId))
}

function parseItem(v: unknown, path: string, depth: number, nextId: () => number): Item {
  const m = expectObject(v, path)
  const type = expectEnum(['group', 'layer'], m.item_type, `${path}.item_type`)
  if (type === 'layer') return parseLayer(m, path, nextId)
  expectKeys(m, GROUP_KEYS, path)
  if (m.display_name === undefined) throw validationError(`Object missing required field \`display_name\` - at \`${path}\``)
  const group: GroupItem = {
    id: nextId(), item_type: 'group',
    display_name: expectKind<string>('str', m.display_name, `${path}.display_name`),
    group_expanded: opt(m.group_expanded, false, (x) => expectKind<boolean>('bool', x, `${path}.group_expanded`)),
    group_enabled: opt(m.group_enabled, true, (x) => expectKind<boolean>('bool', x, `${path}.group_enabled`)),
    group_exclusive: opt(m.group_exclusive, false, (x) => expectKind<boolean>('bool', x, `${path}.group_exclusive`)),
    children: parseChildren(m.children, path, depth, nextId),
  }
  if (group.group_exclusive) keepFirstEnabled(group.children)
  return group
}

/** An exclusive group shows one child: the first enabled one stays on, later ones are turned off (HEAD, §1.3). */
function keepFirstEnabled(children: Item[]): void {
  let seen = false
  for (const c of children) {
    const on = c.item_type === 'layer' ? c.layer_enabled : c.group_enabled
    if (!on) continue
    if (seen) {
      if (c.item_type === 'layer') c.layer_enabled = false
      else c.group_enabled = false
    }
    seen = true
  }
}

/** `root_item` as sent: the root's children, each with a new id from `nextId`. */
export function parseRoot(v: unknown, path: string, nextId: () => number): Item[] {
  const m = expectObject(v, path)
  expectKeys(m, ['item_type', 'children'], path)
  if (m.item_type !== undefined) expectEnum(['root'], m.item_type, `${path}.item_type`)
  return parseChildren(m.children, path, 0, nextId)
}

/** The JSON path of each layer item, for messages that name it. */
export function* layerPaths(items: readonly Item[], path: string): Generator<[LayerItem, string]> {
  for (const [i, it] of items.entries()) {
    const at = `${path}.children[${i}]`
    if (it.item_type === 'layer') yield [it, at]
    else yield* layerPaths(it.children, at)
  }
}

/** What reading needs of each layer's style: its parent, when the item is shown at all. */
export type StyleParents = ReadonlyMap<number, number | null>

/** The read form of a layer (keys in the original's order); the stored transparency gives the opacity. */
export function layerOut(it: LayerItem, styleParent: number | null) {
  const t = it.layer_transparency
  return {
    item_type: 'layer', display_name: it.display_name, layer_style_id: it.layer_style_id, style_parent_id: styleParent,
    layer_adapter: it.layer_adapter, layer_enabled: it.layer_enabled, layer_identifiable: it.layer_identifiable,
    layer_min_scale_denom: it.layer_min_scale_denom, layer_max_scale_denom: it.layer_max_scale_denom,
    legend_symbols: it.legend_symbols, layer_opacity: t === null ? null : tidy((100 - t) / 100),
    draw_order_position: it.draw_order_position, layer_transparency: t,
  }
}

/** `root_item` as a reader sees it: layers whose style is not in `shown` are left out (reference §1.4: the original answers 500). */
export function rootOut(items: readonly Item[], shown: StyleParents) {
  const out = (list: readonly Item[]): unknown[] => list.flatMap((it): unknown[] => {
    if (it.item_type === 'layer') return shown.has(it.layer_style_id) ? [layerOut(it, shown.get(it.layer_style_id)!)] : []
    return [{ item_type: 'group', display_name: it.display_name, group_expanded: it.group_expanded, group_enabled: it.group_enabled,
      group_exclusive: it.group_exclusive, children: out(it.children) }]
  })
  return { item_type: 'root', children: out(items) }
}
