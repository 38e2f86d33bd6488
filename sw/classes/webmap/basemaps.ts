/**
 * @module classes/webmap/basemaps
 * The web map's second member, `basemap_webmap` (reference ngw-services §1.9): its basemap
 * layers in order with a name, `enabled` and `opacity`, a background colour and `disable`.
 * Items read with exactly the four keys NextGIS Connect's `WebMapBaseMap(**item)` accepts;
 * `position` is accepted on write (4.x answers carried it) and the order is the array's.
 */
import { validationError } from '../../core/error.ts'
import { expectKeys, expectKind, expectObject } from '../../core/validate.ts'
import type { MainRead } from '../../port/port.ts'
import type { Basemap, WebMapData } from './types.ts'
import { expectRange } from './tree.ts'

/** The class a basemap item must name: the list is of basemap layers only (a web map's own rule, not a capability). */
export const BASEMAP_CLASS = 'basemap_layer'

const ITEM_KEYS = ['resource_id', 'display_name', 'enabled', 'opacity', 'position']

function itemOf(v: unknown, path: string): Basemap {
  const m = expectObject(v, path)
  expectKeys(m, ITEM_KEYS, path)
  for (const k of ['resource_id', 'display_name']) {
    if (m[k] === undefined) throw validationError(`Object missing required field \`${k}\` - at \`${path}\``)
  }
  const name = expectKind<string>('str', m.display_name, `${path}.display_name`)
  if (!name.length) throw validationError(`Expected a string of at least 1 character - at \`${path}.display_name\``)
  if (m.position !== undefined) expectKind<number | null>('int', m.position, `${path}.position`, true)
  return {
    resource_id: expectKind<number>('int', m.resource_id, `${path}.resource_id`),
    display_name: name,
    enabled: m.enabled === undefined ? true : expectKind<boolean>('bool', m.enabled, `${path}.enabled`),
    // 0 < opacity ≤ 1: a fully transparent basemap is refused, as the original refuses it.
    opacity: m.opacity === undefined ? null : expectRange(m.opacity, `${path}.opacity`, 0, 1, true),
  }
}

/** Applies `basemap_webmap` as sent to a copy of `prev`; every named resource must be a basemap layer. */
export async function applyBasemaps(member: unknown, prev: WebMapData, tx: MainRead): Promise<WebMapData> {
  const P = '$.basemap_webmap'
  const m = expectObject(member, P)
  expectKeys(m, ['basemaps', 'background_color', 'disable'], P)
  const d = { ...prev }
  if (m.basemaps !== undefined) {
    const items = expectKind<unknown[]>('array', m.basemaps, `${P}.basemaps`).map((v, i) => itemOf(v, `${P}.basemaps[${i}]`))
    const classes = new Map((await tx.resources.refs(items.map((b) => b.resource_id))).map((r) => [r.id, r.cls]))
    items.forEach((b, i) => {
      if (classes.get(b.resource_id) !== BASEMAP_CLASS) {
        throw validationError(`Basemap '${b.display_name}': resource id = ${b.resource_id} is not a basemap layer - at \`${P}.basemaps[${i}].resource_id\``)
      }
    })
    d.basemaps = items
  }
  if (m.background_color !== undefined) {
    const c = expectKind<string | null>('str', m.background_color, `${P}.background_color`, true)
    if (c !== null && !/^[0-9a-f]{6}$/.test(c)) throw validationError(`Expected a colour like 'a0b1c2' - at \`${P}.background_color\``)
    d.background_color = c
  }
  if (m.disable !== undefined) d.basemap_disable = expectKind<boolean>('bool', m.disable, `${P}.disable`)
  return d
}

/** The member as read: items whose basemap layer is gone are left out. */
export async function basemapsOut(d: WebMapData, tx: MainRead) {
  const alive = new Set((await tx.resources.refs(d.basemaps.map((b) => b.resource_id))).map((r) => r.id))
  return {
    basemaps: d.basemaps.filter((b) => alive.has(b.resource_id))
      .map((b) => ({ resource_id: b.resource_id, display_name: b.display_name, enabled: b.enabled, opacity: b.opacity })),
    background_color: d.background_color,
    disable: d.basemap_disable,
  }
}
