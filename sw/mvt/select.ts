/**
 * @module mvt/select
 * Which features a tile carries, found in the layer's R*Tree. A tile whose box holds at most
 * `THIN_ABOVE` index entries carries all of them. A fuller tile (a low zoom over a big layer)
 * is thinned: the tile is cut into `GRID` × `GRID` cells, and of the features smaller than a
 * cell only one per cell is kept; larger features always stay. The thinning walks the R*Tree's
 * own nodes (`GpkgTables.rtreeNode`, the format `sqlite/rtree.ts` documents): a subtree
 * smaller than a cell gives one representative without being read further, so the cost
 * follows the size of the tile, not of the layer — a 1,000,000-point layer's zoom-0 tile
 * reads a few thousand nodes and carries at most 16,384 points.
 */
import type { Bbox } from '../geo/geometry.ts'
import type { GpkgTables } from '../feature/types.ts'

/** Where the R*Tree's nodes come from: the layer's tables inside one read. */
export type NodeSource = Pick<GpkgTables, 'rtreeNode'>

/** Entries in a tile's box up to which every feature is kept. */
export const THIN_ABOVE = 16_384
/** Cells per tile side when thinning. */
export const GRID = 128

/**
 * Whether `box` may hold more than `limit` index entries, judged from the tree's inner nodes:
 * a leaf whose box meets `box` counts as full unless it was decoded already. Inner nodes are
 * about one in a hundred (a 1,000,000-feature layer has some eighty) and stay decoded, so a
 * tile with few features needs no counting query; `false` is exact, `true` means "count".
 */
export function mayHoldMore(t: NodeSource, nodes: RtreeNodes, box: Bbox, limit: number): boolean {
  const root = nodes.node(t, 1)
  if (!root) return false
  if (root.depth === 0) return countHits(root, box) > limit
  let bound = 0
  const stack: number[] = [1, root.depth]
  while (stack.length) {
    const level = stack.pop()!, no = stack.pop()!
    const n = nodes.node(t, no)
    if (!n) continue
    for (let i = 0; i < n.count; i++) {
      if (!hits(n.boxes, i, box)) continue
      const child = n.refs[i]!
      if (level > 1) { stack.push(child, level - 1); continue }
      const leaf = nodes.decoded(child)
      bound += leaf ? countHits(leaf, box) : nodes.capacity
      if (bound > limit) return true
    }
  }
  return false
}

const countHits = (n: RtreeNode, box: Bbox) => {
  let c = 0
  for (let i = 0; i < n.count; i++) if (hits(n.boxes, i, box)) c++
  return c
}

interface RtreeNode {
  /** The tree's height (meaningful on the root only). */
  depth: number
  count: number
  /** Leaf: feature ids; inner: child node numbers. */
  refs: Float64Array
  /** `[minX, maxX, minY, maxY]` per cell, as the R*Tree stores them. */
  boxes: Float32Array
}

/** A layer's decoded R*Tree nodes, kept while its database does not change. */
export class RtreeNodes {
  #cache = new Map<number, RtreeNode>()
  /** Entries a node holds at most (from the size of its blob). */
  capacity = 0

  /** Node `no` if it was decoded already. */
  decoded(no: number): RtreeNode | undefined {
    return this.#cache.get(no)
  }

  /** Node `no` of the tree, read from `t` the first time. */
  node(t: NodeSource, no: number): RtreeNode | undefined {
    const hit = this.#cache.get(no)
    if (hit) return hit
    const blob = t.rtreeNode(no)
    if (!blob) return undefined
    const v = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
    const count = v.getUint16(2)
    this.capacity ||= Math.floor((blob.byteLength - 4) / 24)
    const refs = new Float64Array(count)
    const boxes = new Float32Array(count * 4)
    for (let i = 0, o = 4; i < count; i++, o += 24) {
      refs[i] = v.getUint32(o) * 4294967296 + v.getUint32(o + 4) // ids are non-negative
      for (let d = 0; d < 4; d++) boxes[4 * i + d] = v.getFloat32(o + 8 + 4 * d)
    }
    const node = { depth: v.getUint16(0), count, refs, boxes }
    this.#cache.set(no, node)
    return node
  }
}

const hits = (b: Float32Array, i: number, box: Bbox) =>
  b[4 * i]! <= box[2] && b[4 * i + 1]! >= box[0] && b[4 * i + 2]! <= box[3] && b[4 * i + 3]! >= box[1]

/** The thinning cell of position (x, y) in the padded tile `box` (layer SRS), cells of size `cell` from its corner. */
export function thinningCell(box: Bbox, cell: number, x: number, y: number): number {
  const cols = Math.ceil((box[2] - box[0]) / cell) + 1
  const gx = Math.min(cols - 1, Math.max(0, Math.floor((x - box[0]) / cell)))
  const gy = Math.max(0, Math.floor((y - box[1]) / cell))
  return gy * cols + gx
}

/**
 * The ids of the features a full tile keeps (see the module comment). `box` is the tile's
 * padded box in the layer's SRS, `cell` the thinning cell's size in the same units.
 */
export function thinnedIds(t: NodeSource, nodes: RtreeNodes, box: Bbox, cell: number): number[] {
  const root = nodes.node(t, 1)
  if (!root) return []
  const taken = new Set<number>()
  const out: number[] = []
  const cellOf = (b: Float32Array, i: number) => thinningCell(box, cell, (b[4 * i]! + b[4 * i + 1]!) / 2, (b[4 * i + 2]! + b[4 * i + 3]!) / 2)
  // One feature of subtree `no` (at `level`) inside the box, if any.
  const representative = (no: number, level: number): number | undefined => {
    const n = nodes.node(t, no)
    if (!n) return undefined
    for (let i = 0; i < n.count; i++) {
      if (!hits(n.boxes, i, box)) continue
      const r = level === 0 ? n.refs[i]! : representative(n.refs[i]!, level - 1)
      if (r !== undefined) return r
    }
    return undefined
  }
  const stack: number[] = [1, root.depth]
  while (stack.length) {
    const level = stack.pop()!, no = stack.pop()!
    const n = nodes.node(t, no)
    if (!n) continue
    for (let i = 0; i < n.count; i++) {
      if (!hits(n.boxes, i, box)) continue
      const b = n.boxes
      const small = b[4 * i + 1]! - b[4 * i]! < cell && b[4 * i + 3]! - b[4 * i + 2]! < cell
      if (!small) {
        if (level === 0) out.push(n.refs[i]!)
        else stack.push(n.refs[i]!, level - 1)
        continue
      }
      const key = cellOf(b, i)
      if (taken.has(key)) continue
      const id = level === 0 ? n.refs[i]! : representative(n.refs[i]!, level - 1)
      if (id === undefined) continue
      taken.add(key)
      out.push(id)
    }
  }
  return out
}
