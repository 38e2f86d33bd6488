/**
 * @module store/paged-file
 * A file held in JavaScript memory, outside the WASM heap, in 1 MiB segments: the one copy
 * of a database in the browser (and with `--memory`), and SQLite's journals and temporary
 * files in both hosts. It remembers which 4 KiB blocks were written since the last commit,
 * so a commit saves only those.
 */
import type { SyncFile } from './store.ts'

/** Bytes of one segment: the unit a file is held and stored whole in. */
export const SEGMENT = 1 << 20
/** Bytes of one block: the unit of change (a SQLite page at the default page size). */
export const BLOCK = 4096
export const BLOCKS_PER_SEGMENT = SEGMENT / BLOCK

export class PagedFile implements SyncFile {
  #segments: (Uint8Array<ArrayBuffer> | undefined)[] = []
  #size: number
  /** Blocks written since the last commit; `undefined` for a file nobody commits (a journal). */
  #dirty: Set<number> | undefined

  /**
   * A file of `size` bytes, zeros until `restore` puts stored bytes in. `track` keeps the
   * blocks written since the last commit, for a file whose commits save them.
   */
  constructor(size = 0, track = true) {
    this.#size = size
    this.#dirty = track ? new Set() : undefined
  }

  size(): number { return this.#size }

  read(into: Uint8Array, offset: number): number {
    const n = Math.max(0, Math.min(into.length, this.#size - offset))
    let done = 0
    while (done < n) {
      const at = offset + done
      const s = Math.floor(at / SEGMENT)
      const o = at - s * SEGMENT
      const len = Math.min(n - done, SEGMENT - o)
      const seg = this.#segments[s]
      if (seg) into.set(seg.subarray(o, o + len), done)
      else into.fill(0, done, done + len)
      done += len
    }
    return n
  }

  write(data: Uint8Array, offset: number): void {
    // A write past the end leaves no stale bytes of an earlier truncation in the gap.
    if (offset > this.#size) this.#zero(this.#size, offset)
    this.#put(data, offset)
    this.#size = Math.max(this.#size, offset + data.length)
  }

  truncate(size: number): void {
    if (size > this.#size) this.#zero(this.#size, size)
    this.#size = size
    this.#trim()
  }

  sync(): void {}

  close(): void {
    this.#segments = []
    this.#dirty?.clear()
  }

  resident(): number {
    return this.#segments.length * SEGMENT
  }

  /** Blocks written since the last commit, ascending. */
  dirtyBlocks(): number[] {
    return [...(this.#dirty ?? [])].sort((a, b) => a - b)
  }

  /** A private copy of block `i` as it is now (shorter at the end of the file). */
  block(i: number): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(Math.max(0, Math.min(BLOCK, this.#size - i * BLOCK)))
    this.read(out, i * BLOCK)
    return out
  }

  /** Segment `i` as it is now, up to the end of the file: a view, valid until the next write. */
  segment(i: number): Uint8Array<ArrayBuffer> {
    const len = Math.max(0, Math.min(SEGMENT, this.#size - i * SEGMENT))
    return this.#segments[i]?.subarray(0, len) ?? new Uint8Array(len)
  }

  /** What was written is now the committed state. */
  committed(): void {
    this.#dirty?.clear()
  }

  #trim(): void {
    const keep = Math.ceil(this.#size / SEGMENT)
    if (this.#segments.length > keep) this.#segments.length = keep
  }

  #zero(from: number, to: number): void {
    for (let at = from; at < to;) {
      const len = Math.min(to - at, SEGMENT - (at % SEGMENT))
      this.#put(new Uint8Array(len), at)
      at += len
    }
  }

  /**
   * Puts stored bytes back at `offset` while opening: not a change, nothing to save. A whole
   * aligned segment is taken over, not copied.
   */
  restore(data: Uint8Array, offset: number): void {
    if (offset % SEGMENT === 0 && data.length === SEGMENT && data.byteOffset === 0 && data.buffer instanceof ArrayBuffer
      && data.buffer.byteLength === SEGMENT) {
      this.#segments[offset / SEGMENT] = data as Uint8Array<ArrayBuffer>
    } else {
      this.#put(data, offset, false)
    }
  }

  /** Copies `data` in at `offset` and marks the blocks it touches (unless `mark` is false). */
  #put(data: Uint8Array, offset: number, mark = true): void {
    if (!data.length) return
    if (this.#dirty && mark) {
      const last = Math.floor((offset + data.length - 1) / BLOCK)
      for (let b = Math.floor(offset / BLOCK); b <= last; b++) this.#dirty.add(b)
    }
    let done = 0
    while (done < data.length) {
      const at = offset + done
      const s = Math.floor(at / SEGMENT)
      const o = at - s * SEGMENT
      const len = Math.min(data.length - done, SEGMENT - o)
      // An allocation failure (RangeError) reaches the VFS, which answers SQLITE_FULL.
      const seg = this.#segments[s] ??= new Uint8Array(SEGMENT)
      // A page is one write inside one segment: no view to make.
      seg.set(len === data.length ? data : data.subarray(done, done + len), o)
      done += len
    }
  }
}
