/**
 * @module classes/webmap
 * The web map (reference ngw-services §1): layers with their styles in a tree of groups,
 * extents, basemaps, bookmarks and annotations, the map a team makes once and everyone opens.
 * Members `webmap` (§1.2) and `basemap_webmap` (§1.9), both read with `resource.read` and
 * written with `resource.update`; no member is required on create. The endpoints of §1.6
 * (display config, extent, annotations, option schema) are in `routes.ts`.
 *
 * Everything is one JSON document in the resource row (`types.ts`), so it changes and goes
 * with the resource. Layer items are checked on write and filtered on read (`access.ts`).
 */
import { expectKeys, expectObject } from '../../core/validate.ts'
import type { ClassContext, ClassData, ClassFactory, WriteContext } from '../types.ts'
import { emptyWebMap, type WebMapData } from './types.ts'
import { parseRoot, rootOut } from './tree.ts'
import { applySettings, settingsOut } from './settings.ts'
import { applyBasemaps, basemapsOut } from './basemaps.ts'
import { checkTreeWrite, shownStyles } from './access.ts'

export const WEBMAP = 'webmap'

/** The stored document of a web map row, filled with the defaults of fields added later. */
export const webMapOf = (data: ClassData): WebMapData => ({ ...emptyWebMap(), ...(data as Partial<WebMapData>) })

export const webMap: ClassFactory = (env) => {
  const apply = async (ctx: WriteContext, members: Record<string, unknown>, prev: WebMapData): Promise<WebMapData> => {
    let d = prev
    if (members.webmap !== undefined) {
      const m = expectObject(members.webmap, '$.webmap')
      expectKeys(m, KNOWN, '$.webmap')
      const exists = async (id: number) => (await ctx.tx.resources.refs([id])).length > 0
      d = await applySettings(m, d, exists)
      if (m.root_item !== undefined) {
        let next = d.next_id
        const root = parseRoot(m.root_item, '$.webmap.root_item', () => next++)
        await checkTreeWrite(ctx, env.classes, root, prev.root, '$.webmap.root_item')
        d = { ...d, root, next_id: next }
      }
    }
    if (members.basemap_webmap !== undefined) d = await applyBasemaps(members.basemap_webmap, d, ctx.tx)
    return d
  }

  const serialize = async (ctx: ClassContext, _id: number, data: ClassData) => {
    const d = webMapOf(data)
    const { head, scalars, options } = settingsOut(d)
    const bookmark = d.bookmark_resource === null ? undefined : (await ctx.tx.resources.refs([d.bookmark_resource]))[0]
    return {
      webmap: {
        ...head,
        bookmark_resource: bookmark ? { id: bookmark.id, parent: bookmark.parentId === null ? null : { id: bookmark.parentId } } : null,
        root_item: rootOut(d.root, await shownStyles(ctx, env.classes, d.root)),
        ...scalars,
        options,
      },
      basemap_webmap: await basemapsOut(d, ctx.tx),
    }
  }

  return {
    identity: WEBMAP,
    label: 'Web map',
    order: 20,
    category: 'maps_and_services',
    scopes: ['resource', 'webmap'],
    interfaces: [],
    members: ['webmap', 'basemap_webmap'],
    acceptsParent: (p) => p === 'resource_group',
    create: async (ctx, _id, members) => await apply(ctx, members, emptyWebMap()) as unknown as ClassData,
    update: async (ctx, _id, members, data) => await apply(ctx, members, webMapOf(data)) as unknown as ClassData,
    serialize,
    capabilities: {},
  }
}

/** Keys of the `webmap` member a client may send: what it reads (including `bookmark_resource`'s read form). */
const KNOWN = ['initial_extent', 'constraining_extent', 'title', 'draw_order_enabled', 'editable', 'annotation_enabled',
  'annotation_default', 'legend_symbols', 'measure_srs', 'bookmark_resource', 'root_item', 'options',
  ...['left', 'right', 'bottom', 'top'].flatMap((s) => [`extent_${s}`, `extent_const_${s}`])]
