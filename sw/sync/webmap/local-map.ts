/**
 * @module sync/webmap/local-map
 * The local copy of a remote web map's tree: the same groups and items, each item pointing at
 * the local copy of its style; items whose style did not come are left out (they are listed as
 * missing), and groups left empty by that go too.
 */
import { MAX_DEPTH } from './remote-map.ts'

const LAYER_KEYS = ['display_name', 'layer_adapter', 'layer_enabled', 'layer_identifiable', 'layer_transparency',
  'layer_min_scale_denom', 'layer_max_scale_denom', 'legend_symbols', 'draw_order_position']
const GROUP_KEYS = ['display_name', 'group_expanded', 'group_enabled', 'group_exclusive']

type Node = Record<string, unknown>

const pick = (n: Node, keys: string[]) => Object.fromEntries(keys.filter((k) => n[k] !== undefined).map((k) => [k, n[k]]))

/** `root` (a remote `root_item`) with styles renamed by `styles` (remote id → local id). */
export function localTree(root: Node, styles: Map<number, number>): Node {
  const walk = (node: Node, depth = 0): Node[] => {
    const out: Node[] = []
    for (const c of Array.isArray(node.children) ? node.children as Node[] : []) {
      if (c?.item_type === 'layer') {
        const local = styles.get(Number(c.layer_style_id))
        if (local === undefined) continue
        const item: Node = { item_type: 'layer', ...pick(c, LAYER_KEYS), layer_style_id: local }
        // The original's identifiers answer IMAGE/TILE; the write takes the lower case.
        if (typeof item.layer_adapter === 'string') item.layer_adapter = item.layer_adapter.toLowerCase()
        out.push(item)
      } else if (c?.item_type === 'group' && depth < MAX_DEPTH) {
        const children = walk(c, depth + 1)
        if (children.length) out.push({ item_type: 'group', ...pick(c, GROUP_KEYS), children })
      }
    }
    return out
  }
  return { item_type: 'root', children: walk(root) }
}
