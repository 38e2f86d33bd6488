/**
 * @module classes/webmap/access
 * Which layer items a person sees and may put in a web map. One rule both ways: an item is
 * shown to, and may be written by, whoever has `data.read` on its style (the original's
 * display config drops the others, reference ngw-services §1.7); a style that is gone or is no
 * style hides its item. The original never checks on write (a missing style is a 500, any
 * resource passes, §1.4): here a write naming such a style is a 422 that names the item.
 */
import { validationError } from '../../core/error.ts'
import type { ClassContext } from '../types.ts'
import type { ClassLookup } from '../../resource/class.ts'
import type { Item } from './types.ts'
import { layerPaths, type StyleParents } from './tree.ts'
import { layersOf } from './types.ts'

interface StyleFact { parentId: number | null; style: boolean; readable: boolean }

/** The facts of the styles `ids`, read in one query; ids that name no resource are absent. */
async function styleFacts(ctx: ClassContext, classes: ClassLookup, ids: Iterable<number>): Promise<Map<number, StyleFact>> {
  const refs = await ctx.tx.resources.refs([...new Set(ids)])
  const out = new Map<number, StyleFact>()
  for (const r of refs) {
    const style = classes.find(r.cls)?.interfaces.includes('IRenderableStyle') ?? false
    // No evaluator: the demo's seeding, which may do anything.
    const readable = !ctx.acl || await ctx.acl.check(ctx.tx.acl, ctx.user, r.id, 'data', 'read') === true
    out.set(r.id, { parentId: r.parentId, style, readable })
  }
  return out
}

/** The styles of `items` the context's user sees, with their parents (`style_parent_id`). */
export async function shownStyles(ctx: ClassContext, classes: ClassLookup, items: readonly Item[]): Promise<StyleParents> {
  const facts = await styleFacts(ctx, classes, [...layersOf(items)].map((l) => l.layer_style_id))
  const out = new Map<number, number | null>()
  for (const [id, f] of facts) if (f.style && f.readable) out.set(id, f.parentId)
  return out
}

/**
 * Refuses a new tree (422) whose layer names a style that is missing, is no style, or the
 * writer may not read; and a write that would silently drop layers of the stored tree the
 * writer cannot see (they were left out of what they read, so they are not in what they send).
 */
export async function checkTreeWrite(ctx: ClassContext, classes: ClassLookup, next: readonly Item[], stored: readonly Item[], path: string): Promise<void> {
  const facts = await styleFacts(ctx, classes, [...layersOf(next), ...layersOf(stored)].map((l) => l.layer_style_id))
  for (const [item, at] of layerPaths(next, path)) {
    const f = facts.get(item.layer_style_id)
    const name = `Layer item '${item.display_name}' (at \`${at}\`)`
    const data = { location: ['body', ...at.slice(2).split('.'), 'layer_style_id'], layer_style_id: item.layer_style_id }
    if (!f) throw validationError(`${name}: style id = ${item.layer_style_id} does not exist.`, data)
    if (!f.style) throw validationError(`${name}: resource id = ${item.layer_style_id} is not a style.`, data)
    if (!f.readable) throw validationError(`${name}: you may not read the data of style id = ${item.layer_style_id}.`, data)
  }
  const hidden = [...layersOf(stored)].filter((l) => facts.get(l.layer_style_id)?.readable === false)
  if (hidden.length) {
    throw validationError(`This web map holds ${hidden.length} layer item(s) you may not read; a new root_item would remove them. ` +
      'Ask someone who may read every layer to change the tree.', { location: ['body', ...path.slice(2).split('.')] })
  }
}
