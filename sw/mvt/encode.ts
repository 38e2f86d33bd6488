/**
 * @module mvt/encode
 * Mapbox Vector Tile 2.1 encoding of one layer, written as features arrive (no feature
 * objects kept). The result is a whole `Tile` message holding just that layer (field 3):
 * a repeated protobuf field is a concatenation, so the tile of several resources is the
 * concatenation of their layers' bytes, each cached on its own.
 */
import { PbfWriter } from 'pbf'
import type { RowValue, ValueKind } from '../feature/row-values.ts'
import { LINE, POINT, type TileShape } from './shape.ts'

const MOVE_TO = 1
const LINE_TO = 2
const CLOSE_PATH = 7
const command = (id: number, count: number) => (id & 7) | (count << 3)
const zigzag = (n: number) => (n << 1) ^ (n >> 31)

/** Writes a shape's command stream as a packed field (positions relative to the last one). */
class GeometryWriter {
  cx = 0
  cy = 0

  run(pbf: PbfWriter, coords: number[], from: number, to: number): void {
    for (let i = from; i < to; i += 2) {
      const x = coords[i]!, y = coords[i + 1]!
      pbf.writeVarint(zigzag(x - this.cx))
      pbf.writeVarint(zigzag(y - this.cy))
      this.cx = x; this.cy = y
    }
  }

  write(shape: TileShape, pbf: PbfWriter): void {
    this.cx = 0; this.cy = 0
    if (shape.type === POINT) {
      pbf.writeVarint(command(MOVE_TO, shape.points.length / 2))
      this.run(pbf, shape.points, 0, shape.points.length)
    } else if (shape.type === LINE) {
      for (const line of shape.lines) {
        pbf.writeVarint(command(MOVE_TO, 1))
        this.run(pbf, line, 0, 2)
        pbf.writeVarint(command(LINE_TO, line.length / 2 - 1))
        this.run(pbf, line, 2, line.length)
      }
    } else {
      for (const poly of shape.polygons) {
        for (const ring of poly) {
          // The closing position is implied by ClosePath.
          pbf.writeVarint(command(MOVE_TO, 1))
          this.run(pbf, ring, 0, 2)
          pbf.writeVarint(command(LINE_TO, ring.length / 2 - 2))
          this.run(pbf, ring, 2, ring.length - 2)
          pbf.writeVarint(command(CLOSE_PATH, 1))
        }
      }
    }
  }
}

/**
 * The layer's values. Equal values of a kind are written once (the number 1 of an integer
 * field and "1" of a text field differ). A kind whose values hardly repeat (names, ids) stops
 * being looked up after a sample: its values are appended, which is what deduplication would
 * have come to, without hashing every one.
 */
class ValueTable {
  readonly order: [ValueKind, string | number | boolean][] = []
  #maps: Record<ValueKind, Map<string | number | boolean, number> | null> =
    { int: new Map(), double: new Map(), bool: new Map(), string: new Map() }
  #seen: Record<ValueKind, number> = { int: 0, double: 0, bool: 0, string: 0 }

  index(kind: ValueKind, v: string | number | boolean): number {
    // A whole number too big for a double comes as text: write it as text.
    const k: ValueKind = typeof v === 'string' && kind !== 'string' ? 'string' : kind
    const map = this.#maps[k]
    if (map) {
      const i = map.get(v)
      if (i !== undefined) return i
      // After 1,024 values of which 90 % were new, equal values are too rare to look for.
      if (++this.#seen[k] === 1024 && map.size > 920) this.#maps[k] = null
      else map.set(v, this.order.length)
    }
    this.order.push([k, v])
    return this.order.length - 1
  }
}

/** Bytes of `n` (a non-negative integer up to 2^53) as a varint. */
function varintSize(n: number): number {
  let size = 1
  while (n >= 0x80) { n = Math.floor(n / 128); size++ }
  return size
}

const PROPS: { tags: number[] } = { tags: [] }
const writePackedTags = (tags: number[], pbf: PbfWriter) => { for (const t of tags) pbf.writeVarint(t) }

/** Collects one MVT layer. Keys are the layer's attribute names, in the order given. */
export class LayerEncoder {
  #body = new PbfWriter()
  #values = new ValueTable()
  #geom = new GeometryWriter()
  #count = 0

  constructor(readonly name: string, readonly extent: number, readonly keys: readonly string[],
    readonly kinds: readonly ValueKind[]) {}

  get size(): number {
    return this.#count
  }

  /** The feature's tags (key and value indexes) in PROPS.tags; `null` values are left out. */
  #tags(values: readonly RowValue[]): number[] {
    const tags = PROPS.tags
    tags.length = 0
    for (let i = 0; i < values.length; i++) {
      const v = values[i]
      if (v === null || v === undefined) continue
      tags.push(i, this.#values.index(this.kinds[i]!, v))
    }
    return tags
  }

  /** Adds a cut shape; `values[i]` belongs to `keys[i]` (`null` values are left out). */
  add(id: number, shape: TileShape, values: readonly RowValue[]): void {
    const tags = this.#tags(values)
    const pbf = this.#body
    pbf.writeTag(2, 2)
    pbf.writeRawMessage(writeFeature, { id, shape, tags, geom: this.#geom })
    this.#count++
  }

  /**
   * Adds a single point at integer tile position (x, y): the common case, written straight
   * (the message's sizes are known up front: no shape object, no nested message writers).
   */
  addPoint(id: number, x: number, y: number, values: readonly RowValue[]): void {
    const tags = this.#tags(values)
    let tagBytes = 0
    for (let i = 0; i < tags.length; i++) tagBytes += varintSize(tags[i]!)
    const gx = zigzag(x), gy = zigzag(y)
    const geomBytes = 1 + varintSize(gx) + varintSize(gy)
    const size = 1 + varintSize(id) + (tags.length ? 1 + varintSize(tagBytes) + tagBytes : 0) + 2 + 1 + varintSize(geomBytes) + geomBytes
    const pbf = this.#body
    pbf.writeTag(2, 2)
    pbf.writeVarint(size)
    pbf.writeVarintField(1, id)
    if (tags.length) {
      pbf.writeTag(2, 2)
      pbf.writeVarint(tagBytes)
      for (let i = 0; i < tags.length; i++) pbf.writeVarint(tags[i]!)
    }
    pbf.writeVarintField(3, POINT)
    pbf.writeTag(4, 2)
    pbf.writeVarint(geomBytes)
    pbf.writeVarint(command(MOVE_TO, 1))
    pbf.writeVarint(gx)
    pbf.writeVarint(gy)
    this.#count++
  }

  /** The `Tile` message holding this layer, or an empty array when it has no features. */
  finish(): Uint8Array {
    if (!this.#count) return new Uint8Array(0)
    const pbf = this.#body
    pbf.writeVarintField(15, 2)
    pbf.writeStringField(1, this.name)
    for (const k of this.keys) pbf.writeStringField(3, k)
    for (const v of this.#values.order) pbf.writeMessage(4, writeValue, v)
    pbf.writeVarintField(5, this.extent)
    const body = pbf.finish()
    const out = new PbfWriter(new Uint8Array(body.length + 8))
    out.writeBytesField(3, body)
    return out.finish().slice()
  }
}

interface FeatureArgs { id: number; shape: TileShape; tags: number[]; geom: GeometryWriter }

function writeFeature(f: FeatureArgs, pbf: PbfWriter): void {
  pbf.writeVarintField(1, f.id)
  if (f.tags.length) pbf.writeMessage(2, writePackedTags, f.tags)
  pbf.writeVarintField(3, f.shape.type)
  pbf.writeTag(4, 2)
  pbf.writeRawMessage(writeGeometry, f)
}

const writeGeometry = (f: FeatureArgs, pbf: PbfWriter) => f.geom.write(f.shape, pbf)

function writeValue([kind, v]: [ValueKind, string | number | boolean], pbf: PbfWriter): void {
  switch (kind) {
    case 'string': pbf.writeStringField(1, String(v)); return
    case 'bool': pbf.writeBooleanField(7, v as boolean); return
    case 'double': pbf.writeDoubleField(3, v as number); return
    case 'int': {
      const n = v as number
      if (n >= 0) pbf.writeVarintField(5, n)
      else pbf.writeSVarintField(6, n)
    }
  }
}
