// port: legacy-sql (issue 22)
/**
 * @module mvt/select
 * Which features a tile carries, found in the layer's R*Tree. A tile whose box holds at most
 * `THIN_ABOVE` index entries carries all of them. A fuller tile (a low zoom over a big layer)
 * is thinned: the tile is cut into `GRID` × `GRID` cells, and of the features smaller than a
 * cell only one per cell is kept; larger features always stay. The thinning walks the R*Tree's
 * own nodes (shadow table `<rtree>_node`, the format `geo/rtree.ts` documents): a subtree
 * smaller than a cell gives one representative without being read further, so the cost
 * follows the size of the tile, not of the layer — a 1,000,000-point layer's zoom-0 tile
 * reads a few thousand nodes and carries at most 16,384 points.
 */
import type { SqlDb } from '../store/database.ts'
import type { Bbox } from '../geo/geometry.ts'

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
export function mayHoldMore(db: SqlDb, nodes: RtreeNodes, box: Bbox, limit: number): boolean {
  const root = nodes.node(db, 1)
  if (!root) return false
  if (root.depth === 0) return countHits(root, box) > limit
  let bound = 0
  const stack: number[] = [1, root.depth]
  while (stack.length) {
    const level = stack.pop()!, no = stack.pop()!
    const n = nodes.node(db, no)
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

/** How many index entries intersect `box` (layer SRS). */
export function countInBox(db: SqlDb, rtree: string, box: Bbox): number {
  return Number(db.selectValue(`SELECT count(*) FROM "${rtree}" WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?`,
    [box[2], box[0], box[3], box[1]]))
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

type Statement = ReturnType<SqlDb['prepare']>

/**
 * A layer's reads kept while its database does not change: decoded R*Tree nodes and
 * prepared statements (finalized by `release`, or by SQLite when the connection closes).
 */
export class RtreeNodes {
  #cache = new Map<number, RtreeNode>()
  #stmt: Statement | undefined
  #statements = new Map<string, Statement>()
  /** Entries a node holds at most (from the size of its blob). */
  capacity = 0

  constructor(readonly rtree: string) {}

  /** Node `no` if it was decoded already. */
  decoded(no: number): RtreeNode | undefined {
    return this.#cache.get(no)
  }

  /** A statement of `db` for `sql`, prepared once per database version. */
  prepared(db: SqlDb, sql: string): Statement {
    let st = this.#statements.get(sql)
    if (!st) this.#statements.set(sql, st = db.prepare(sql))
    return st
  }

  /** Node `no` of the tree, through a statement of `db` (finalized by `release`). */
  node(db: SqlDb, no: number): RtreeNode | undefined {
    const hit = this.#cache.get(no)
    if (hit) return hit
    const st = (this.#stmt ??= db.prepare(`SELECT data FROM "${this.rtree}_node" WHERE nodeno = ?`))
    st.bind([no])
    const blob = st.step() ? st.get(0) as Uint8Array : undefined
    st.reset()
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

  /** Finalizes the statements (the decoded nodes stay). */
  release(): void {
    this.#stmt?.finalize()
    this.#stmt = undefined
    for (const st of this.#statements.values()) st.finalize()
    this.#statements.clear()
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
export function thinnedIds(db: SqlDb, nodes: RtreeNodes, box: Bbox, cell: number): number[] {
  const root = nodes.node(db, 1)
  if (!root) return []
  const taken = new Set<number>()
  const out: number[] = []
  const cellOf = (b: Float32Array, i: number) => thinningCell(box, cell, (b[4 * i]! + b[4 * i + 1]!) / 2, (b[4 * i + 2]! + b[4 * i + 3]!) / 2)
  // One feature of subtree `no` (at `level`) inside the box, if any.
  const representative = (no: number, level: number): number | undefined => {
    const n = nodes.node(db, no)
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
    const n = nodes.node(db, no)
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
