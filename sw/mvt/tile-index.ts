/**
 * @module mvt/tile-index
 * A layer's features kept in memory for cutting tiles (the "index kept per layer"):
 * positions in EPSG:3857 in typed arrays behind a packed Hilbert R-tree (flatbush), each
 * attribute as a number into a table of its values already encoded as MVT `Value` messages,
 * everything laid out in the tree's order so that a tile reads neighbouring memory. A tile is
 * then written without SQLite and without a per-feature object for points: the R*Tree join
 * reads ~1 µs per row from SQLite-WASM before any of our work starts.
 *
 * The index follows the database without rebuilding: the tile cache hands it the fids the
 * storage noted (mvt/cache.ts); their old entries are marked dead and their current rows
 * kept in a small overlay, until the overlay grows past `MAX_OVERLAY` and the index is built
 * again. It is built in slices of a few milliseconds between requests (`IndexBuilder`), so a
 * big layer never stalls the worker; until it is ready, tiles are cut from the R*Tree.
 */
import Flatbush from 'flatbush'
import type { Bbox } from '../geo/geometry.ts'
import { latToMercator, lonToMercator } from '../geo/tile.ts'
import { transformer } from '../geo/reproject.ts'
import type { FieldType, GpkgTables, LayerMeta } from '../feature/types.ts'
import { rowValue, VALUE_KIND, type RowCursor, type RowValue, type ValueKind } from '../feature/row-values.ts'
import { cutShape } from './cut.ts'
import { LINE, POINT, POLYGON, partsBbox, readPoint, readShape, type Project, type TileShape } from './shape.ts'
import { countUpTo, thinnedEntries } from './packed-tree.ts'
import { thinningCell } from './select.ts'
import { ByteWriter, command, CURSOR, MOVE_TO, RING, ringInTile, valueBytes, varintSize, writeGeometry, writeRing, zigzag, type RingFrame } from './tile-bytes.ts'

/** Changed features kept beside the index before it is built again. */
export const MAX_OVERLAY = 4096
/** A slice of the build: rows read before the builder lets requests run. */
const SLICE_MS = 8
const NONE = 0xffffffff

/** Pushes EPSG:3857 coordinates of a layer-SRS position (the tile projection's first step). */
function to3857(srs: number): Project {
  if (srs === 3857) return (x, y, out) => { out.push(x, y) }
  if (srs === 4326) return (x, y, out) => { out.push(lonToMercator(x), latToMercator(y)) }
  const t = transformer(srs, 3857)
  return (x, y, out) => { const p = t([x, y]); out.push(p[0]!, p[1]!) }
}

/** A typed array that grows by doubling while the index is built. */
class Grow<T extends Float64Array | Uint32Array | Uint8Array> {
  length = 0
  constructor(public a: T, readonly make: (n: number) => T) {}
  push(v: number): void {
    if (this.length === this.a.length) {
      const b = this.make(this.a.length * 2)
      b.set(this.a)
      this.a = b
    }
    this.a[this.length++] = v
  }
  bytes(src: Uint8Array): void {
    while (this.length + src.length > this.a.length) {
      const b = this.make(this.a.length * 2)
      b.set(this.a)
      this.a = b
    }
    this.a.set(src, this.length)
    this.length += src.length
  }
  done(): T {
    return this.a.slice(0, this.length) as T
  }
}

const f64 = (n: number) => new Float64Array(n)
const u32 = (n: number) => new Uint32Array(n)
const u8 = (n: number) => new Uint8Array(n)

/**
 * One field's values, each encoded once. Equal values share a number while they repeat; a
 * field whose values hardly do (names, ids) stops being looked up after a sample, as the
 * streaming encoder's value table does.
 */
class ValuePool {
  #bytes = new Grow(u8(1 << 12), u8)
  #starts = new Grow(u32(256), u32)
  #map: Map<string | number | boolean, number> | null = new Map()
  #seen = 0
  /** Whether equal values share a number (kept after the build: tiles then deduplicate them). */
  shared = true
  bytes = new Uint8Array(0)
  starts = new Uint32Array(0)

  constructor(readonly kind: ValueKind) {}

  /** Bytes held so far (encoded values and their starts, with the stamps tiles keep for shared ones). */
  get size(): number {
    return this.#bytes.length + this.#starts.length * (this.shared ? 12 : 4)
  }

  add(v: RowValue): number {
    if (v === null) return NONE
    const map = this.#map
    if (map) {
      const hit = map.get(v)
      if (hit !== undefined) return hit
      // After 1,024 values of which 90 % were new, equal values are too rare to look for.
      if (++this.#seen === 1024 && map.size > 920) { this.#map = null; this.shared = false }
    }
    const id = this.#starts.length
    this.#starts.push(this.#bytes.length)
    this.#bytes.bytes(valueBytes(this.kind, v))
    this.#map?.set(v, id)
    return id
  }

  finish(): void {
    this.#starts.push(this.#bytes.length)
    this.bytes = this.#bytes.done()
    this.starts = this.#starts.done()
    this.#map = null
  }

  /**
   * Lays the values out again in the order entries `order` first use them; returns the
   * entries' value numbers (in `order`'s order) into the new layout.
   */
  reorder(ids: Uint32Array, order: Uint32Array): Uint32Array {
    const renum = new Uint32Array(this.starts.length).fill(NONE)
    const bytes = new Uint8Array(this.bytes.length), starts = new Uint32Array(this.starts.length)
    const out = new Uint32Array(order.length)
    let next = 0, o = 0
    for (let s = 0; s < order.length; s++) {
      const id = ids[order[s]!]!
      if (id === NONE) { out[s] = NONE; continue }
      if (renum[id] === NONE) {
        renum[id] = next
        starts[next++] = o
        for (let b = this.starts[id]!, e = this.starts[id + 1]!; b < e; b++) bytes[o++] = this.bytes[b]!
      }
      out[s] = renum[id]!
    }
    starts[next] = o
    this.bytes = bytes.subarray(0, o)
    this.starts = starts.subarray(0, next + 1)
    return out
  }
}

/** A changed feature, kept beside the index: its current geometry (EPSG:3857) and values. */
interface OverlayFeature { fid: number; box: Bbox; shape: TileShape; values: RowValue[] }

/** Reads rows of the feature table (fid, geom, fields) into positions, shapes and values (build and overlay alike). */
class RowDecoder {
  readonly project: Project
  readonly types: FieldType[]
  readonly #at: [number, number] = [0, 0]

  constructor(meta: LayerMeta) {
    this.project = to3857(meta.srs)
    this.types = meta.fields.map((f) => f.datatype)
  }

  /** The row's single point in `at`, its shape (EPSG:3857), or `null` for an empty geometry. */
  geometry(r: RowCursor): [number, number] | TileShape | null {
    const blob = r.blobView(1)
    if (!blob) return null
    if (readPoint(blob, this.project, this.#at)) return this.#at
    return readShape(blob, this.project)
  }
}

/** A shape's box, from all its parts. */
const shapeBox = (s: TileShape): Bbox => partsBbox(s.type === POINT ? [s.points] : s.type === LINE ? s.lines : s.polygons.flat())

/** Where a tile lies: the padded box (EPSG:3857), the clip box in tile units, and the tile's origin and scale. */
export interface TileFrame extends RingFrame {
  box: Bbox
  clip: Bbox
  /** The thinning cell of a full tile (EPSG:3857 metres; mvt/select.ts). */
  cell: number
}

/**
 * Builds a layer's index in slices. Each `step` runs inside one read of the layer database
 * and reads rows by ascending fid for about `SLICE_MS`; fids the tile cache reports changed
 * meanwhile are read again at the end if the scan had passed them.
 */
export class IndexBuilder {
  /** Set when the index would exceed `budget` bytes: the build stops, tiles stay on the R*Tree. */
  tooBig = false
  #connection: object | undefined
  #rows: number | undefined
  #decoder: RowDecoder | undefined
  #last = -Infinity
  #pending = new Set<number>()
  readonly #fids = new Grow(f64(1024), f64)
  readonly #boxes = new Grow(f64(4096), f64)
  readonly #shapeAt = new Grow(u32(1024), u32)
  readonly #struct = new Grow(u32(1024), u32)
  readonly #coords = new Grow(f64(1024), f64)
  readonly #values: Grow<Uint32Array>[]
  readonly #pools: ValuePool[]

  constructor(readonly meta: LayerMeta, readonly budget: number, readonly sliceMs = SLICE_MS) {
    this.#values = meta.fields.map(() => new Grow(u32(1024), u32))
    this.#pools = meta.fields.map((f) => new ValuePool(VALUE_KIND[f.datatype]))
  }

  /** Notes features changed while building (their rows are read again at the end when already passed). */
  changed(fids: Iterable<number>): void {
    for (const fid of fids) if (fid <= this.#last) this.#pending.add(fid)
  }

  /**
   * Reads the next slice; returns the index once every row is read, `null` when the build
   * cannot go on (too big, or the database was reopened under it), else `undefined`.
   */
  step(tables: GpkgTables): TileIndex | null | undefined {
    if ((this.#connection ??= tables.connection) !== tables.connection) return null
    const d = (this.#decoder ??= new RowDecoder(this.meta))
    const r = tables.scan(this.#last, this.meta.fields)
    const until = performance.now() + this.sliceMs
    let more = false
    try {
      for (let n = 0; r.step(); n++) {
        this.#add(r, d)
        if ((n & 255) === 255 && performance.now() > until) { more = true; break }
      }
    } finally {
      r.finalize()
    }
    // Judged from the first slice on: the rows read so far times the layer's row count.
    this.#rows ??= tables.featureCount()
    const read = Math.max(1, this.#fids.length)
    if (this.#estimate() * Math.max(1, this.#rows / read) > this.budget) { this.tooBig = true; return null }
    if (more) return undefined
    const index = this.#finish()
    if (this.#pending.size) index.changed(tables, [...this.#pending])
    return index
  }

  /** Bytes the index will hold: what is read so far, the R-tree and the tiles' value stamps. */
  #estimate(): number {
    const n = this.#fids.length
    return n * (8 + 8 + 4 + 32 + 4 + 1 + 40 + 4 * this.#pools.length) + this.#struct.length * 4 + this.#coords.length * 8 +
      this.#pools.reduce((s, p) => s + p.size, 0)
  }

  #add(r: RowCursor, d: RowDecoder): void {
    const fid = r.number(0)
    this.#last = fid
    const g = d.geometry(r)
    if (!g) return
    this.#fids.push(fid)
    if (Array.isArray(g)) {
      this.#boxes.push(g[0]); this.#boxes.push(g[1]); this.#boxes.push(g[0]); this.#boxes.push(g[1])
      this.#shapeAt.push(NONE)
    } else {
      const b = shapeBox(g)
      for (const v of b) this.#boxes.push(v)
      this.#shapeAt.push(this.#struct.length)
      this.#keepShape(g)
    }
    for (let i = 0; i < this.#pools.length; i++) this.#values[i]!.push(this.#pools[i]!.add(rowValue(r, i + 2, d.types[i]!)))
  }

  /** The shape as a structure record (type, part counts and lengths) and its coordinates. */
  #keepShape(s: TileShape): void {
    const st = this.#struct, co = this.#coords
    st.push(s.type)
    st.push(co.length)
    const part = (c: number[]) => { st.push(c.length); for (const v of c) co.push(v) }
    if (s.type === POINT) part(s.points)
    else if (s.type === LINE) { st.push(s.lines.length); s.lines.forEach(part) }
    else {
      st.push(s.polygons.length)
      for (const p of s.polygons) { st.push(p.length); p.forEach(part) }
    }
  }

  /**
   * The index, its entries renumbered in the R-tree's Hilbert order: a tile's entries are
   * then neighbours in every array (positions, values, coordinates), not scattered over the
   * layer in fid order — in a server, reading them in fid order missed the CPU caches.
   */
  #finish(): TileIndex {
    for (const p of this.#pools) p.finish()
    const n = this.#fids.length
    const boxes = this.#boxes.done(), fids = this.#fids.done(), shapeAt = this.#shapeAt.done(), struct = this.#struct.done()
    const coords = this.#coords.done()
    const values = this.#values.map((v) => v.done())
    const first = new Flatbush(Math.max(1, n))
    for (let i = 0; i < n; i++) first.add(boxes[4 * i]!, boxes[4 * i + 1]!, boxes[4 * i + 2]!, boxes[4 * i + 3]!)
    if (!n) first.add(0, 0, 0, 0) // flatbush needs an item; the index marks it dead
    first.finish()
    const order = Uint32Array.from(first._indices.subarray(0, n))
    const slotOf = new Uint32Array(n)
    const tree = new Flatbush(Math.max(1, n))
    const b2 = new Float64Array(4 * n), f2 = new Float64Array(n), at2 = new Uint32Array(n)
    const st2 = new Grow(u32(Math.max(16, struct.length)), u32), co2 = new Grow(f64(Math.max(16, coords.length)), f64)
    for (let s = 0; s < n; s++) {
      const i = order[s]!
      slotOf[i] = s
      f2[s] = fids[i]!
      for (let d = 0; d < 4; d++) b2[4 * s + d] = boxes[4 * i + d]!
      tree.add(b2[4 * s]!, b2[4 * s + 1]!, b2[4 * s + 2]!, b2[4 * s + 3]!)
      if (shapeAt[i] === NONE) { at2[s] = NONE; continue }
      // The shape's record (type, coordinate start, counts), its coordinates moved along.
      at2[s] = st2.length
      let p = shapeAt[i]!
      const type = struct[p++]!, c = struct[p++]!
      st2.push(type); st2.push(co2.length)
      let numbers = 0
      const copy = () => { const k = struct[p++]!; st2.push(k); numbers += k }
      if (type === POINT) copy()
      else if (type === LINE) { const lines = struct[p++]!; st2.push(lines); for (let l = 0; l < lines; l++) copy() }
      else {
        const polys = struct[p++]!
        st2.push(polys)
        for (let q = 0; q < polys; q++) { const rings = struct[p++]!; st2.push(rings); for (let r = 0; r < rings; r++) copy() }
      }
      for (let k = 0; k < numbers; k++) co2.push(coords[c + k]!)
    }
    if (!n) tree.add(0, 0, 0, 0)
    tree.finish()
    const v2 = values.map((v, j) => this.#pools[j]!.reorder(v, order))
    return new TileIndex(this.meta, tree, f2, b2, at2, st2.done(), co2.done(), v2, this.#pools, n, fids, slotOf)
  }
}

const GEOM = new ByteWriter()

/**
 * One MVT layer being written from an index: the features' bytes, the value table in order of
 * first use (a field's value number, or field -1: bytes of `extra`) and the current feature's
 * tags. One instance, reused from tile to tile (a cut runs to its end without waiting).
 */
class LayerWriter {
  readonly w = new ByteWriter()
  tags = new Uint32Array(64)
  nt = 0
  field = new Int32Array(1024)
  ref = new Uint32Array(1024)
  nv = 0
  extra: Uint8Array[] = []
  count = 0

  /** Starts a layer of at most `values` values and `fields` fields. */
  begin(values: number, fields: number): void {
    if (this.field.length < values) { this.field = new Int32Array(values * 2); this.ref = new Uint32Array(values * 2) }
    if (this.tags.length < 2 * fields) this.tags = new Uint32Array(4 * fields)
    this.w.pos = 0
    this.nv = 0
    this.count = 0
    this.extra.length = 0
  }

  /** The tags of index entry `i`: a shared field's value written once per tile (`stamp`), others each time. */
  entryTags(values: Uint32Array[], stamps: (Uint32Array | null)[], locals: (Uint32Array | null)[], i: number, tile: number): void {
    const tags = this.tags, field = this.field, ref = this.ref
    let nt = 0, nv = this.nv
    for (let j = 0; j < values.length; j++) {
      const id = values[j]![i]!
      if (id === NONE) continue
      const stamp = stamps[j]
      tags[nt++] = j
      if (stamp) {
        const local = locals[j]!
        if (stamp[id] !== tile) { stamp[id] = tile; local[id] = nv; field[nv] = j; ref[nv++] = id }
        tags[nt++] = local[id]!
      } else {
        tags[nt++] = nv
        field[nv] = j; ref[nv++] = id
      }
    }
    this.nt = nt
    this.nv = nv
  }

  /** The tags of an overlay feature: its values encoded now, each written once. */
  rawTags(values: RowValue[], pools: ValuePool[]): void {
    this.nt = 0
    for (let j = 0; j < values.length; j++) {
      const v = values[j]
      if (v === null || v === undefined) continue
      this.tags[this.nt++] = j; this.tags[this.nt++] = this.nv
      this.field[this.nv] = -1; this.ref[this.nv++] = this.extra.length
      this.extra.push(valueBytes(pools[j]!.kind, v).slice())
    }
  }

  /** Writes a feature with the current tags: its geometry is the point (x, y), or (when `geomBytes` > 0) GEOM's bytes. */
  feature(fid: number, type: number, geomBytes: number, x: number, y: number): void {
    const w = this.w, tags = this.tags, nt = this.nt
    let tagBytes = 0
    for (let j = 0; j < nt; j++) tagBytes += varintSize(tags[j]!)
    const point = geomBytes === 0
    const zx = zigzag(x), zy = zigzag(y)
    if (point) geomBytes = 1 + varintSize(zx) + varintSize(zy)
    const size = 1 + varintSize(fid) + (nt ? 1 + varintSize(tagBytes) + tagBytes : 0) + 2 + 1 + varintSize(geomBytes) + geomBytes
    w.ensure(size + 12)
    const b = w.buf
    b[w.pos++] = 0x12; w.varint(size)
    b[w.pos++] = 0x08; w.varint(fid)
    if (nt) {
      b[w.pos++] = 0x12; w.varint(tagBytes)
      for (let j = 0; j < nt; j++) w.varint(tags[j]!)
    }
    b[w.pos++] = 0x18; b[w.pos++] = type
    b[w.pos++] = 0x22; w.varint(geomBytes)
    if (point) { b[w.pos++] = command(MOVE_TO, 1); w.varint(zx); w.varint(zy) }
    else { b.set(GEOM.buf.subarray(0, geomBytes), w.pos); w.pos += geomBytes }
    this.count++
  }

  /** Writes a feature of a cut shape with the current tags. */
  shape(fid: number, shape: TileShape): void {
    GEOM.pos = 0
    writeGeometry(GEOM, shape)
    this.feature(fid, shape.type, GEOM.pos, 0, 0)
  }

  /**
   * The `Tile` message holding the layer (empty when it has no feature): the features, then
   * as the streaming encoder writes them version, name, keys, values and extent.
   */
  finish(name: string, extent: number, fields: readonly { keyname: string }[], pools: ValuePool[]): Uint8Array {
    if (!this.count) return new Uint8Array(0)
    const w = this.w
    w.ensure(4)
    w.buf[w.pos++] = 0x78; w.buf[w.pos++] = 2
    w.text(0x0a, name)
    for (const fl of fields) w.text(0x1a, fl.keyname)
    for (let v = 0; v < this.nv; v++) {
      const j = this.field[v]!
      let bytes: Uint8Array, from: number, to: number
      if (j < 0) { bytes = this.extra[this.ref[v]!]!; from = 0; to = bytes.length }
      else { const p = pools[j]!, id = this.ref[v]!; bytes = p.bytes; from = p.starts[id]!; to = p.starts[id + 1]! }
      w.ensure(to - from + 12)
      const b = w.buf
      b[w.pos++] = 0x22; w.varint(to - from)
      // Values are a few bytes: a loop is faster than a subarray and set() for each.
      let o = w.pos
      for (let i = from; i < to; i++) b[o++] = bytes[i]!
      w.pos = o
    }
    w.ensure(12)
    w.buf[w.pos++] = 0x28; w.varint(extent)
    const out = new Uint8Array(1 + varintSize(w.pos) + w.pos)
    out[0] = 0x1a
    let o = 1
    for (let n = w.pos; ; ) { if (n < 0x80) { out[o++] = n; break } out[o++] = (n & 0x7f) | 0x80; n >>>= 7 }
    out.set(w.buf.subarray(0, w.pos), o)
    return out
  }
}

const LAYER = new LayerWriter()

/** A layer's features in memory, ready to be cut (see the module comment). */
export class TileIndex {
  readonly #dead: Uint8Array
  readonly #overlay = new Map<number, OverlayFeature>()
  /** Per shared field: the tile a value was last written to, and its number there. */
  readonly #stamp: (Uint32Array | null)[]
  readonly #local: (Uint32Array | null)[]
  #tile = 0
  /** Approximate memory held, in bytes. */
  readonly bytes: number
  /** When the index last cut a tile (for the cache's memory budget). */
  used = performance.now()

  /**
   * Entry `s` of every array is the `s`-th of the R-tree's order; `byFid` holds the fids in
   * ascending order and `slotOf` their entries (for the change notes).
   */
  constructor(readonly meta: LayerMeta, readonly tree: Flatbush, readonly fids: Float64Array, readonly boxes: Float64Array,
    readonly shapeAt: Uint32Array, readonly struct: Uint32Array, readonly coords: Float64Array,
    readonly values: Uint32Array[], readonly pools: ValuePool[], readonly count: number,
    readonly byFid: Float64Array, readonly slotOf: Uint32Array) {
    this.#dead = new Uint8Array(Math.max(1, count))
    if (!count) this.#dead[0] = 1
    this.#stamp = pools.map((p) => p.shared ? new Uint32Array(p.starts.length) : null)
    this.#local = pools.map((p) => p.shared ? new Uint32Array(p.starts.length) : null)
    this.bytes = tree.data.byteLength + fids.byteLength + boxes.byteLength + shapeAt.byteLength + struct.byteLength +
      coords.byteLength + this.#dead.byteLength + values.reduce((s, v) => s + v.byteLength, 0) + byFid.byteLength + slotOf.byteLength +
      pools.reduce((s, p) => s + p.bytes.byteLength + p.starts.byteLength * (p.shared ? 3 : 1), 0)
  }

  /** Changed features kept beside the index. */
  get overlaySize(): number {
    return this.#overlay.size
  }

  /**
   * Takes in features that changed (inserted, updated or deleted): their entries die, their
   * current rows join the overlay. Returns false once the overlay is too big to keep (the
   * caller then drops the index and builds it again).
   */
  changed(tables: GpkgTables, fids: number[]): boolean {
    for (const fid of fids) {
      const slot = this.#slot(fid)
      if (slot >= 0) this.#dead[slot] = 1
      this.#overlay.delete(fid)
    }
    const d = new RowDecoder(this.meta)
    const r = tables.byFids(fids, this.meta.fields)
    try {
      while (r.step()) {
        const g = d.geometry(r)
        if (!g) continue
        const shape: TileShape = Array.isArray(g) ? { type: POINT, points: [g[0], g[1]] } : g
        const values = d.types.map((t, i) => rowValue(r, i + 2, t))
        this.#overlay.set(r.number(0), { fid: r.number(0), box: shapeBox(shape), shape, values })
      }
    } finally {
      r.finalize()
    }
    return this.#overlay.size <= MAX_OVERLAY
  }

  #slot(fid: number): number {
    const f = this.byFid
    let lo = 0, hi = this.count - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const v = f[mid]!
      if (v === fid) return this.slotOf[mid]!
      if (v < fid) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }

  /**
   * The polygons of entry `i`, inside the clip box, written into GEOM as `cutShape` and the
   * streaming encoder would write them; false when nothing of them is left.
   */
  #writeInsidePolygons(i: number, f: TileFrame): boolean {
    const st = this.struct, co = this.coords
    let p = this.shapeAt[i]! + 1
    let c = st[p++]!
    GEOM.pos = 0
    CURSOR.x = 0; CURSOR.y = 0
    for (let np = st[p++]!; np > 0; np--) {
      const rings = st[p++]!
      for (let r = 0; r < rings; r++) {
        const n = st[p++]!
        const len = ringInTile(co, c, n, f)
        c += n
        if (!len) {
          // No outer ring: the holes go with it.
          if (r === 0) { for (let h = 1; h < rings; h++) c += st[p++]!; break }
          continue
        }
        // Outer rings run clockwise on screen, holes counter-clockwise.
        writeRing(GEOM, len, RING.clockwise !== (r === 0))
      }
    }
    return GEOM.pos > 0
  }

  /** The shape of entry `i` in tile units. */
  #shape(i: number, f: TileFrame): TileShape {
    const st = this.struct, co = this.coords
    let p = this.shapeAt[i]!
    const type = st[p++]!
    let c = st[p++]!
    const part = () => {
      const n = st[p++]!
      const out = new Array<number>(n)
      for (let j = 0; j < n; j += 2, c += 2) { out[j] = (co[c]! - f.x0) * f.k; out[j + 1] = (f.y0 - co[c + 1]!) * f.k }
      return out
    }
    if (type === POINT) return { type: POINT, points: part() }
    if (type === LINE) return { type: LINE, lines: Array.from({ length: st[p++]! }, part) }
    return { type: POLYGON, polygons: Array.from({ length: st[p++]! }, () => Array.from({ length: st[p++]! }, part)) }
  }

  /**
   * The tile's MVT layer (a whole `Tile` message holding it, empty when no feature is in it):
   * the same features and values the R*Tree cut writes (mvt/service.ts `cutLayer`). A box of
   * more than `limit` entries is thinned by the same rule (mvt/packed-tree.ts), which may keep
   * other representatives of a cell than the R*Tree's.
   */
  cut(name: string, extent: number, f: TileFrame, limit: number): Uint8Array {
    // A tile of more than `limit` entries is thinned, as from the R*Tree (mvt/select.ts).
    const taken = countUpTo(this.tree, f.box, limit) > limit ? new Set<number>() : undefined
    const hits = taken ? thinnedEntries(this.tree, f.box, f.cell, this.#dead, taken) : this.tree.search(f.box[0], f.box[1], f.box[2], f.box[3])
    this.used = performance.now()
    const tile = ++this.#tile
    const out = LAYER
    out.begin((hits.length + this.#overlay.size) * this.pools.length, this.pools.length)
    const { clip, x0, y0, k } = f
    const boxes = this.boxes, dead = this.#dead, shapeAt = this.shapeAt
    for (const i of hits) {
      if (dead[i]) continue
      if (shapeAt[i] === NONE) {
        // Points, the bulk of big layers: no shape object, no clipping arrays.
        const x = (boxes[4 * i]! - x0) * k, y = (y0 - boxes[4 * i + 1]!) * k
        if (x < clip[0] || y < clip[1] || x > clip[2] || y > clip[3]) continue
        out.entryTags(this.values, this.#stamp, this.#local, i, tile)
        out.feature(this.fids[i]!, POINT, 0, Math.round(x), Math.round(y))
        continue
      }
      // Lines and polygons under one tile unit round to nothing: skipped before they are read.
      if ((boxes[4 * i + 2]! - boxes[4 * i]!) * k < 1 && (boxes[4 * i + 3]! - boxes[4 * i + 1]!) * k < 1) continue
      if (this.struct[shapeAt[i]!] === POLYGON && (boxes[4 * i]! - x0) * k >= clip[0] && (boxes[4 * i + 2]! - x0) * k <= clip[2] &&
        (y0 - boxes[4 * i + 3]!) * k >= clip[1] && (y0 - boxes[4 * i + 1]!) * k <= clip[3]) {
        // Polygons inside the clip box, the bulk of polygon tiles: written with no arrays made.
        if (this.#writeInsidePolygons(i, f)) {
          out.entryTags(this.values, this.#stamp, this.#local, i, tile)
          out.feature(this.fids[i]!, POLYGON, GEOM.pos, 0, 0)
        }
        continue
      }
      const cut = cutShape(this.#shape(i, f), clip, f.tolerance)
      if (!cut) continue
      out.entryTags(this.values, this.#stamp, this.#local, i, tile)
      out.shape(this.fids[i]!, cut)
    }
    for (const o of this.#overlay.values()) {
      const b = o.box, s = o.shape
      if (b[0] > f.box[2] || b[2] < f.box[0] || b[1] > f.box[3] || b[3] < f.box[1]) continue
      if (s.type !== POINT && (b[2] - b[0]) * k < 1 && (b[3] - b[1]) * k < 1) continue
      if (taken && b[2] - b[0] < f.cell && b[3] - b[1] < f.cell) {
        const key = thinningCell(f.box, f.cell, (b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
        if (taken.has(key)) continue
        taken.add(key)
      }
      const project = (c: number[]) => c.map((v, j) => j % 2 ? (y0 - v) * k : (v - x0) * k)
      const inTile: TileShape = s.type === POINT ? { type: POINT, points: project(s.points) }
        : s.type === LINE ? { type: LINE, lines: s.lines.map(project) } : { type: POLYGON, polygons: s.polygons.map((p) => p.map(project)) }
      const cut = cutShape(inTile, clip, f.tolerance)
      if (!cut) continue
      out.rawTags(o.values, this.pools)
      out.shape(o.fid, cut)
    }
    return out.finish(name, extent, this.meta.fields, this.pools)
  }
}
