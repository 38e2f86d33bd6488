/**
 * @module sqlite/rtree
 * Bulk loading of a 2D SQLite R*Tree (the GeoPackage spatial index). SQLite inserts one
 * entry at a time, with splits and forced reinserts: for a large batch that is most of the
 * time spent in SQL. When a batch is at least as large as the tree, the whole tree is
 * rebuilt here instead, packed Sort-Tile-Recursive style, and written straight into the
 * virtual table's shadow tables (`<name>_node`, `_parent`, `_rowid`) in the on-disk format
 * SQLite documents for them (and keeps stable, as any file format):
 *
 *   node blob (fixed size = the root's length): u16 depth (root only, else 0), u16 cell count,
 *   cells of i64 id (leaf: rowid, inner: child node number) + 4 × f32 (minX maxX minY maxY),
 *   all big-endian; node 1 is the root.
 *
 * Coordinates are rounded outward to 32-bit floats exactly as the rtree module does it, so
 * the result is the same set of boxes a row-by-row insert would store.
 */
import type { Database as SqlDb, Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { insertMany } from '../store/bulk.ts'

/** One index entry: rowid and its box `[minX, maxX, minY, maxY]` as SQLite will store it. */
export interface RtreeEntry { id: number; box: Float32Array }

const CELL = 24
/** rtree.c's RTREE_MAXCELLS: a node never holds more cells, whatever its byte size. */
const MAX_CELLS = 51
const F32 = new Float32Array(1)
const I32 = new Int32Array(F32.buffer)

/** The float32 next to `f` (a float32) towards `dir` (+1 or -1). */
function nextFloat(f: number, dir: 1 | -1): number {
  if (f === 0) return dir * 1.401298464324817e-45
  F32[0] = f
  I32[0]! += (f > 0) === (dir > 0) ? 1 : -1
  return F32[0]!
}

/** The largest float32 not above `d`, as the rtree module stores a minimum. */
export function valueDown(d: number): number {
  const f = Math.fround(d)
  return f > d ? nextFloat(f, -1) : f
}

/** The smallest float32 not below `d`, as the rtree module stores a maximum. */
export function valueUp(d: number): number {
  const f = Math.fround(d)
  return f < d ? nextFloat(f, 1) : f
}

/** The entries of the tree `name`, read from its leaf nodes. */
function readEntries(db: SqlDb, t: (suffix: string) => string): { ids: number[]; boxes: number[] } {
  const ids: number[] = []
  const boxes: number[] = []
  const leaves = db.selectValues(`SELECT data FROM ${t('node')} WHERE nodeno IN (SELECT DISTINCT nodeno FROM ${t('rowid')})`)
  for (const blob of leaves as Uint8Array[]) {
    const v = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
    const n = v.getUint16(2)
    for (let i = 0, o = 4; i < n; i++, o += CELL) {
      ids.push(Number(v.getBigInt64(o)))
      boxes.push(v.getFloat32(o + 8), v.getFloat32(o + 12), v.getFloat32(o + 16), v.getFloat32(o + 20))
    }
  }
  return { ids, boxes }
}

/** Number of entries in tree `name`. */
export function rtreeSize(db: SqlDb, name: string): number {
  return Number(db.selectValue(`SELECT count(*) FROM "${name}_rowid"`))
}

/**
 * Adds entries to tree `name` by rebuilding it whole: the existing entries plus
 * `ids[i]` with the box `boxes[4i..4i+3]` = `minX, minY, maxX, maxY` (doubles; rounded here).
 * The ids must not be in the tree yet. Runs inside the caller's transaction. `schema` names
 * an attached database holding the tree.
 */
export function rtreeBulkInsert(sqlite: Sqlite3Static, db: SqlDb, name: string, newIds: ArrayLike<number>, newBoxes: ArrayLike<number>,
  schema = 'main'): void {
  const t = (suffix: string) => `"${schema}"."${name}_${suffix}"`
  const nodeSize = Number(db.selectValue(`SELECT length(data) FROM ${t('node')} WHERE nodeno = 1`))
  const perNode = Math.min(MAX_CELLS, Math.floor((nodeSize - 4) / CELL))
  // Leave room in every node, so the next single inserts do not split at once.
  const fill = Math.max(2, Math.floor(perNode * 0.9))
  const old = readEntries(db, t)
  const count = old.ids.length + newIds.length
  const ids = new Float64Array(count)
  const box = new Float32Array(count * 4) // minX, maxX, minY, maxY as stored
  old.ids.forEach((id, i) => { ids[i] = id })
  box.set(old.boxes)
  for (let i = 0, k = old.ids.length; i < newIds.length; i++, k++) {
    ids[k] = newIds[i]!
    box[4 * k] = valueDown(newBoxes[4 * i]!)
    box[4 * k + 1] = valueUp(newBoxes[4 * i + 2]!)
    box[4 * k + 2] = valueDown(newBoxes[4 * i + 1]!)
    box[4 * k + 3] = valueUp(newBoxes[4 * i + 3]!)
  }

  // Pack level by level. A level is a list of items (entry or node index) with boxes.
  interface Level { ref: Float64Array; box: Float32Array }
  const nodes: { cells: Float64Array; box: Float32Array; depth: number }[] = []
  // Leaves refer to entries by their index in `ids`; nodes above to nodes by index in `nodes`.
  const entries = new Float64Array(count)
  for (let i = 0; i < count; i++) entries[i] = i
  let level: Level = { ref: entries, box }
  let depth = 0
  while (level.ref.length > perNode) {
    const groups = strGroups(level.box, level.ref.length, fill)
    const ref = new Float64Array(groups.length)
    const up = new Float32Array(groups.length * 4)
    groups.forEach((g, k) => {
      const b = pick(level.box, g)
      nodes.push({ cells: Float64Array.from(g, (i) => level.ref[i]!), box: b, depth })
      ref[k] = nodes.length - 1 // the child's index in `nodes`; numbered below
      up.set(union(b), 4 * k)
    })
    level = { ref, box: up }
    depth++
  }
  nodes.push({ cells: level.ref, box: level.box, depth }) // the root
  // Node numbers: the root is 1, the rest in creation order from 2.
  const rootIndex = nodes.length - 1
  const numberOf = (index: number) => (index === rootIndex ? 1 : index + 2)
  const data = new Uint8Array(nodes.length * nodeSize)
  const view = new DataView(data.buffer)
  const parents: number[] = []
  const leafOf = new Float64Array(count) // entry index → its leaf's node number
  nodes.forEach((node, index) => {
    const base = (numberOf(index) - 1) * nodeSize
    if (index === rootIndex) view.setUint16(base, node.depth)
    view.setUint16(base + 2, node.cells.length)
    for (let c = 0; c < node.cells.length; c++) {
      const o = base + 4 + c * CELL
      const cell = node.cells[c]!
      const ref = node.depth === 0 ? ids[cell]! : numberOf(cell)
      setInt64(view, o, ref)
      for (let d = 0; d < 4; d++) view.setFloat32(o + 8 + 4 * d, node.box[4 * c + d]!)
      if (node.depth === 0) leafOf[cell] = numberOf(index)
      else parents.push(ref, numberOf(index))
    }
  })
  // `_rowid` rows in id order, so its b-tree only appends (new ids come sorted already).
  let byId: ArrayLike<number> = entries
  for (let i = 1; i < count; i++) {
    if (ids[i - 1]! > ids[i]!) {
      byId = Array.from(entries).sort((a, b) => ids[a]! - ids[b]!)
      break
    }
  }
  const rowids: number[][] = new Array(count)
  for (let i = 0; i < count; i++) rowids[i] = [ids[byId[i]!]!, leafOf[byId[i]!]!]
  db.exec(`DELETE FROM ${t('node')}; DELETE FROM ${t('parent')}; DELETE FROM ${t('rowid')}`)
  db.exec({ sql: `INSERT INTO ${t('node')} (nodeno, data)
    WITH RECURSIVE n(no) AS (SELECT 1 UNION ALL SELECT no + 1 FROM n WHERE no < ?3)
    SELECT no, substr(?1, (no - 1) * ?2 + 1, ?2) FROM n`, bind: [data, nodeSize, nodes.length] })
  insertMany(sqlite, db, `INSERT INTO ${t('parent')} (nodeno, parentnode)`, pairs(parents))
  insertMany(sqlite, db, `INSERT INTO ${t('rowid')} (rowid, nodeno)`, rowids)
}

/** Writes a whole number as a big-endian i64 (BigInt only for the rare negative one). */
function setInt64(view: DataView, o: number, v: number): void {
  if (v >= 0 && v <= Number.MAX_SAFE_INTEGER) {
    view.setUint32(o, Math.floor(v / 4294967296))
    view.setUint32(o + 4, v >>> 0)
  } else {
    view.setBigInt64(o, BigInt(v))
  }
}

/** `[a, b]` rows from a flat list, in order of `a`: the b-tree then only appends. */
function pairs(flat: number[]): number[][] {
  const out: number[][] = []
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!])
  return out.sort((x, y) => x[0]! - y[0]!)
}

/** The boxes of items `idx`, in that order. */
function pick(box: Float32Array, idx: number[]): Float32Array {
  const out = new Float32Array(idx.length * 4)
  idx.forEach((i, k) => out.set(box.subarray(4 * i, 4 * i + 4), 4 * k))
  return out
}

/** The box around `boxes` (float32 bounds of float32 boxes are exact). */
function union(boxes: Float32Array): [number, number, number, number] {
  const u: [number, number, number, number] = [Infinity, -Infinity, Infinity, -Infinity]
  for (let i = 0; i < boxes.length; i += 4) {
    if (boxes[i]! < u[0]) u[0] = boxes[i]!
    if (boxes[i + 1]! > u[1]) u[1] = boxes[i + 1]!
    if (boxes[i + 2]! < u[2]) u[2] = boxes[i + 2]!
    if (boxes[i + 3]! > u[3]) u[3] = boxes[i + 3]!
  }
  return u
}

/**
 * Sort-Tile-Recursive grouping of `n` boxes into nodes of at most `cap`: sort by centre x,
 * cut into vertical slices, sort each slice by centre y, cut into nodes of near-equal size.
 */
function strGroups(box: Float32Array, n: number, cap: number): number[][] {
  const nodeCount = Math.max(1, Math.ceil(n / cap))
  const sliceCount = Math.ceil(Math.sqrt(nodeCount))
  const kx = new Float64Array(n)
  const ky = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    kx[i] = box[4 * i]! + box[4 * i + 1]!
    ky[i] = box[4 * i + 2]! + box[4 * i + 3]!
  }
  const order: number[] = new Array(n)
  for (let i = 0; i < n; i++) order[i] = i
  order.sort((a, b) => kx[a]! - kx[b]!)
  const groups: number[][] = []
  const perSlice = Math.ceil(n / sliceCount)
  for (let s = 0; s < n; s += perSlice) {
    const slice = order.slice(s, s + perSlice).sort((a, b) => ky[a]! - ky[b]!)
    const k = Math.ceil(slice.length / cap)
    // Spread the slice evenly over its nodes: no node is left nearly empty.
    for (let g = 0; g < k; g++) groups.push(slice.slice(Math.floor((g * slice.length) / k), Math.floor(((g + 1) * slice.length) / k)))
  }
  return groups
}
