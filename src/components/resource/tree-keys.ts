/**
 * @module components/resource/tree-keys
 * Keyboard moves of the resource tree, after the WAI-ARIA tree view pattern: what a key does
 * from the focused item, given the items as they are shown (open groups' children in order).
 * Plain data in and out, so it is tested without a browser.
 */
import type { ComputedRef, InjectionKey } from 'vue'

/** What the tree gives its items: the id of the one item in the tab order (a roving tabindex). */
export const TAB_STOP: InjectionKey<ComputedRef<number | null>> = Symbol('tree tab stop')

/** One shown item of the tree. */
export interface TreeItem {
  id: number
  /** The shown parent's id; `null` for the root. */
  parent: number | null
  expandable: boolean
  expanded: boolean
  /** The first shown child, when open and its children are loaded. */
  firstChild: number | null
}

export type TreeMove =
  | { kind: 'focus'; id: number }
  | { kind: 'expand'; id: number }
  | { kind: 'collapse'; id: number }
  | { kind: 'activate'; id: number }

interface Node { id: number }

/** The shown items in order: the root, and the children of every open item after it. */
export function shownItems<N extends Node>(root: N, childrenOf: (id: number) => readonly N[] | undefined,
  isExpanded: (id: number) => boolean, canExpand: (node: N) => boolean): TreeItem[] {
  const out: TreeItem[] = []
  // Iterative, depth first; children pushed in reverse so they come out in order.
  const stack: [N, number | null][] = [[root, null]]
  while (stack.length) {
    const [node, parent] = stack.pop()!
    const expandable = canExpand(node)
    const expanded = expandable && isExpanded(node.id)
    const kids = expanded ? childrenOf(node.id) ?? [] : []
    out.push({ id: node.id, parent, expandable, expanded, firstChild: kids[0]?.id ?? null })
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i]!, node.id])
  }
  return out
}

/** What `key` does on item `current`; `null` when nothing (the key is left to the browser). */
export function treeKey(key: string, items: readonly TreeItem[], current: number): TreeMove | null {
  const i = items.findIndex((it) => it.id === current)
  const item = items[i]
  if (!item) return items[0] ? { kind: 'focus', id: items[0].id } : null
  switch (key) {
    case 'ArrowDown': return i + 1 < items.length ? { kind: 'focus', id: items[i + 1]!.id } : null
    case 'ArrowUp': return i > 0 ? { kind: 'focus', id: items[i - 1]!.id } : null
    case 'Home': return { kind: 'focus', id: items[0]!.id }
    case 'End': return { kind: 'focus', id: items[items.length - 1]!.id }
    case 'ArrowRight':
      if (item.expandable && !item.expanded) return { kind: 'expand', id: item.id }
      return item.firstChild !== null ? { kind: 'focus', id: item.firstChild } : null
    case 'ArrowLeft':
      if (item.expanded) return { kind: 'collapse', id: item.id }
      return item.parent !== null ? { kind: 'focus', id: item.parent } : null
    case 'Enter':
    case ' ':
      return { kind: 'activate', id: item.id }
    default:
      return null
  }
}
