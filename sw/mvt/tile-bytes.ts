/**
 * @module mvt/tile-bytes
 * MVT bytes written by hand for the tile index (mvt/tile-index.ts): a reusable protobuf
 * buffer, `Value` messages, command streams, and the polygon fast path that makes a ring
 * inside the tile ready (projected, simplified, rounded, wound) in reused typed arrays. Every
 * byte is what the streaming encoder (mvt/encode.ts, with `pbf`) and `cut.ts` write for the
 * same input: test/unit/mvt-index.test.ts compares whole tiles.
 */
import type { ValueKind } from '../feature/row-values.ts'
import { LINE, POINT, type TileShape } from './shape.ts'

/** What a ring needs of its tile: origin, scale (tile units per metre) and simplification tolerance. */
export interface RingFrame { x0: number; y0: number; k: number; tolerance: number }

/** Bytes of `n` (a non-negative integer up to 2^53) as a varint. */
export function varintSize(n: number): number {
  if (n < 0x80) return 1
  if (n < 0x4000) return 2
  if (n < 0x200000) return 3
  if (n < 0x10000000) return 4
  let size = 5
  for (n = Math.floor(n / 0x800000000); n > 0; n = Math.floor(n / 128)) size++
  return size
}
export const zigzag = (n: number) => ((n << 1) ^ (n >> 31)) >>> 0

/** Protobuf bytes written into one growing buffer, reused from tile to tile. */
export class ByteWriter {
  buf = new Uint8Array(1 << 16)
  pos = 0

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return
    const b = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n))
    b.set(this.buf.subarray(0, this.pos))
    this.buf = b
  }

  varint(n: number): void {
    const b = this.buf
    if (n <= 0x7fffffff) {
      while (n >= 0x80) { b[this.pos++] = (n & 0x7f) | 0x80; n >>>= 7 }
      b[this.pos++] = n
      return
    }
    while (n >= 0x80) { b[this.pos++] = (n % 128) | 0x80; n = Math.floor(n / 128) }
    b[this.pos++] = n
  }

  /** A length-delimited UTF-8 field: its tag byte, length and bytes. */
  text(tag: number, s: string): void {
    const t = UTF8.encode(s)
    this.ensure(t.length + 12)
    this.buf[this.pos++] = tag
    this.varint(t.length)
    this.raw(t)
  }

  raw(src: Uint8Array): void {
    this.ensure(src.length)
    this.buf.set(src, this.pos)
    this.pos += src.length
  }
}

const UTF8 = new TextEncoder()

export const MOVE_TO = 1, LINE_TO = 2, CLOSE_PATH = 7
export const command = (id: number, count: number) => (id & 7) | (count << 3)

/** Writes a cut shape's command stream (positions relative to the last one) into `w`. */
export function writeGeometry(w: ByteWriter, s: TileShape): void {
  let cx = 0, cy = 0
  const run = (c: number[], from: number, to: number) => {
    w.ensure(10 * (to - from))
    for (let i = from; i < to; i += 2) {
      w.varint(zigzag(c[i]! - cx)); w.varint(zigzag(c[i + 1]! - cy))
      cx = c[i]!; cy = c[i + 1]!
    }
  }
  w.ensure(16)
  if (s.type === POINT) { w.varint(command(MOVE_TO, s.points.length / 2)); run(s.points, 0, s.points.length); return }
  if (s.type === LINE) {
    for (const l of s.lines) {
      w.ensure(16); w.varint(command(MOVE_TO, 1)); run(l, 0, 2)
      w.ensure(16); w.varint(command(LINE_TO, l.length / 2 - 1)); run(l, 2, l.length)
    }
    return
  }
  for (const p of s.polygons) {
    for (const ring of p) {
      // The closing position is implied by ClosePath.
      w.ensure(16); w.varint(command(MOVE_TO, 1)); run(ring, 0, 2)
      w.ensure(16); w.varint(command(LINE_TO, ring.length / 2 - 2)); run(ring, 2, ring.length - 2)
      w.ensure(16); w.varint(command(CLOSE_PATH, 1))
    }
  }
}

/** Scratch of the polygon fast path, reused: the ring in tile units, kept vertices, the stack, the rounded ring. */
export const RING = {
  p: new Float64Array(256), keep: new Uint8Array(128), stack: new Int32Array(256), q: new Int32Array(256), clockwise: false,
  reserve(n: number) {
    if (this.p.length < n) { this.p = new Float64Array(2 * n); this.keep = new Uint8Array(n); this.stack = new Int32Array(2 * n); this.q = new Int32Array(2 * n + 2) }
  },
}

/**
 * A ring of the coordinate pool (`n` numbers from `c`, EPSG:3857) made ready as `cut.ts`'s
 * `finishRing` makes a ring that lies inside the clip box — projected, simplified (the same
 * Douglas–Peucker), rounded without repeats, closed — into RING.q, with no arrays made.
 * Returns its length in numbers (0: fewer than three distinct positions or no area);
 * RING.clockwise tells whether it runs clockwise on screen, as an outer ring must.
 */
export function ringInTile(co: Float64Array, c: number, n: number, f: RingFrame): number {
  RING.reserve(n)
  const { p, keep, stack, q } = RING
  const m = n / 2
  for (let j = 0; j < n; j += 2) { p[j] = (co[c + j]! - f.x0) * f.k; p[j + 1] = (f.y0 - co[c + j + 1]!) * f.k }
  const tol = f.tolerance
  if (tol > 0 && m > 2) {
    keep.fill(0, 0, m)
    keep[0] = 1; keep[m - 1] = 1
    const sq = tol * tol
    let sp = 0
    stack[sp++] = 0; stack[sp++] = m - 1
    while (sp) {
      const last = stack[--sp]!, first = stack[--sp]!
      let maxD = sq, index = -1
      const ax = p[2 * first]!, ay = p[2 * first + 1]!, bx = p[2 * last]!, by = p[2 * last + 1]!
      for (let i = first + 1; i < last; i++) {
        // Squared distance to the segment, as simplify.ts's segDist2.
        let sx = ax, sy = ay
        const dx = bx - ax, dy = by - ay
        const px = p[2 * i]!, py = p[2 * i + 1]!
        if (dx !== 0 || dy !== 0) {
          const t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
          if (t > 1) { sx = bx; sy = by } else if (t > 0) { sx += dx * t; sy += dy * t }
        }
        const ex = px - sx, ey = py - sy, d = ex * ex + ey * ey
        if (d > maxD) { maxD = d; index = i }
      }
      if (index >= 0) {
        keep[index] = 1
        if (index - first > 1) { stack[sp++] = first; stack[sp++] = index }
        if (last - index > 1) { stack[sp++] = index; stack[sp++] = last }
      }
    }
  } else keep.fill(1, 0, m)
  let len = 0, lx = NaN, ly = NaN
  for (let i = 0; i < m; i++) {
    if (!keep[i]) continue
    const x = Math.round(p[2 * i]!), y = Math.round(p[2 * i + 1]!)
    if (x === lx && y === ly) continue
    q[len++] = x; q[len++] = y
    lx = x; ly = y
  }
  if (len && (q[0] !== q[len - 2] || q[1] !== q[len - 1])) { q[len] = q[0]!; q[len + 1] = q[1]!; len += 2 }
  if (len < 8) return 0
  let area = 0
  for (let i = 0; i < len - 2; i += 2) area += q[i]! * q[i + 3]! - q[i + 2]! * q[i + 1]!
  RING.clockwise = area > 0
  return area === 0 ? 0 : len
}

/** The cursor of a feature's command stream while rings are written straight (see `writeInsidePolygons`). */
export const CURSOR = { x: 0, y: 0 }

/** Writes RING.q (`len` numbers, closed) as MoveTo, LineTo, ClosePath; reversed when `reverse`. */
export function writeRing(w: ByteWriter, len: number, reverse: boolean): void {
  const q = RING.q
  const m = len / 2
  w.ensure(10 * len + 16)
  let cx = CURSOR.x, cy = CURSOR.y
  w.varint(command(MOVE_TO, 1))
  w.varint(zigzag(q[0]! - cx)); w.varint(zigzag(q[1]! - cy))
  cx = q[0]!; cy = q[1]!
  w.varint(command(LINE_TO, m - 2))
  // A reversed closed ring starts at the same position and runs back through the others.
  for (let j = 1; j < m - 1; j++) {
    const o = 2 * (reverse ? m - 1 - j : j)
    const x = q[o]!, y = q[o + 1]!
    w.varint(zigzag(x - cx)); w.varint(zigzag(y - cy))
    cx = x; cy = y
  }
  w.varint(command(CLOSE_PATH, 1))
  CURSOR.x = cx; CURSOR.y = cy
}

/** The MVT value kind a value is written as (a whole number too big for a double comes as text). */
const kindOf = (kind: ValueKind, v: string | number | boolean): ValueKind => typeof v === 'string' && kind !== 'string' ? 'string' : kind

const F64 = new DataView(new ArrayBuffer(8))
const VALUE = new ByteWriter()

/** The bytes of a `Value` message, as the streaming encoder (pbf) writes them; valid until the next call. */
export function valueBytes(kind: ValueKind, v: string | number | boolean): Uint8Array {
  const w = VALUE
  w.pos = 0
  switch (kindOf(kind, v)) {
    case 'string': w.text(0x0a, String(v)); break
    case 'bool': w.buf[w.pos++] = 0x38; w.buf[w.pos++] = v ? 1 : 0; break
    case 'double':
      w.buf[w.pos++] = 0x19
      F64.setFloat64(0, v as number, true)
      for (let i = 0; i < 8; i++) w.buf[w.pos++] = F64.getUint8(i)
      break
    case 'int': {
      const n = v as number
      if (n >= 0) { w.buf[w.pos++] = 0x28; w.varint(n) } else { w.buf[w.pos++] = 0x30; w.varint(-n * 2 - 1) }
    }
  }
  return w.buf.subarray(0, w.pos)
}
