/**
 * @module mvt/packed-tree
 * Walks of a tile index's R-tree (flatbush's packed Hilbert tree, through the fields its
 * typings declare: `_boxes`, `_indices`, `_levelBounds`, `nodeSize`, `numItems`) that its own
 * `search` cannot do without visiting every hit: counting the entries in a box up to a limit,
 * and the thinning of full tiles that mvt/select.ts does on the layer's R*Tree (one small
 * feature per cell; a subtree smaller than a cell gives one representative unread), so that a
 * full tile of a 1,000,000-point layer costs what the tile shows, not what the layer holds.
 *
 * Layout: level 0 holds the items' boxes in the tree's order, each higher level its nodes;
 * `_levelBounds[l]` is where level `l` ends (in array positions, four per box); a node's
 * `_indices` entry is the position of its first child, an item's its index; node `k` of
 * level `l` covers items `k·nodeSize^l` up to (not including) `(k+1)·nodeSize^l`.
 */
import type Flatbush from 'flatbush'
import type { Bbox } from '../geo/geometry.ts'
import { thinningCell } from './select.ts'

const meets = (b: ArrayLike<number>, pos: number, box: Bbox) =>
  b[pos]! <= box[2] && b[pos + 1]! <= box[3] && b[pos + 2]! >= box[0] && b[pos + 3]! >= box[1]

/** How many entries' boxes meet `box`, counted until it passes `limit` (then a number above it). */
export function countUpTo(tree: Flatbush, box: Bbox, limit: number): number {
  const { _boxes: b, _indices: idx, _levelBounds: bounds, nodeSize, numItems } = tree
  let count = 0
  const stack: number[] = [b.length - 4, bounds.length - 1]
  while (stack.length) {
    const level = stack.pop()!, first = stack.pop()!
    const end = Math.min(first + nodeSize * 4, bounds[level]!)
    for (let pos = first; pos < end; pos += 4) {
      if (!meets(b, pos, box)) continue
      if (level === 0) { if (++count > limit) return count; continue }
      if (box[0] <= b[pos]! && box[1] <= b[pos + 1]! && box[2] >= b[pos + 2]! && box[3] >= b[pos + 3]!) {
        // A node inside the box: all its items count, unread.
        const k = (pos - bounds[level - 1]!) / 4, span = nodeSize ** level
        count += Math.min((k + 1) * span, numItems) - k * span
        if (count > limit) return count
        continue
      }
      stack.push(idx[pos >> 2]!, level - 1)
    }
  }
  return count
}

/**
 * The entries a full tile keeps: `box` is the padded tile, `cell` the thinning cell (as
 * select.ts `thinnedIds` takes them); entries marked in `dead` are passed over. `taken` gets
 * the cells used, for features kept beside the tree.
 */
export function thinnedEntries(tree: Flatbush, box: Bbox, cell: number, dead: Uint8Array, taken: Set<number>): number[] {
  const { _boxes: b, _indices: idx, _levelBounds: bounds, nodeSize, numItems } = tree
  const items = numItems * 4
  const out: number[] = []
  // One live item of the subtree whose children start at `first` (on `level`) inside the box, if any.
  const representative = (first: number, level: number): number | undefined => {
    const end = Math.min(first + nodeSize * 4, bounds[level]!)
    for (let pos = first; pos < end; pos += 4) {
      if (!meets(b, pos, box)) continue
      const r = first < items ? (dead[idx[pos >> 2]!] ? undefined : idx[pos >> 2]!) : representative(idx[pos >> 2]!, level - 1)
      if (r !== undefined) return r
    }
    return undefined
  }
  const stack: number[] = [b.length - 4, bounds.length - 1]
  while (stack.length) {
    const level = stack.pop()!, first = stack.pop()!
    const end = Math.min(first + nodeSize * 4, bounds[level]!)
    for (let pos = first; pos < end; pos += 4) {
      if (!meets(b, pos, box)) continue
      const ref = idx[pos >> 2]!
      if (b[pos + 2]! - b[pos]! >= cell || b[pos + 3]! - b[pos + 1]! >= cell) {
        if (level > 0) stack.push(ref, level - 1)
        else if (!dead[ref]) out.push(ref)
        continue
      }
      const key = thinningCell(box, cell, (b[pos]! + b[pos + 2]!) / 2, (b[pos + 1]! + b[pos + 3]!) / 2)
      if (taken.has(key)) continue
      const id = level > 0 ? representative(ref, level - 1) : dead[ref] ? undefined : ref
      if (id === undefined) continue
      taken.add(key)
      out.push(id)
    }
  }
  return out
}
