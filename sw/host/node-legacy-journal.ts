/**
 * @module host/node-legacy-journal
 * Data folders of the first storage format kept a redo journal `<name>.journal` beside each
 * database file (the chunks of a save, written and fsynced before they were applied). The
 * database file itself was always a plain SQLite file, so migrating a folder is only this:
 * on open, a complete journal left by a crash is applied, a torn one ignored, and the
 * journal is removed. From then on SQLite's own rollback journal takes over.
 *
 * Layout, little-endian: 'OPJ1', u32 chunk count, f64 image size; per chunk u32 index,
 * u32 length, the bytes (chunks of 64 KiB); then u32 CRC-32 of everything before it and
 * 'DONE'. A journal is complete only when its length, trailer and checksum all agree.
 */
import { closeSync, constants, fdatasyncSync, ftruncateSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { crc32 } from 'node:zlib'
import { syncDirSync } from './node-file.ts'

const MAGIC = 0x314a504f // 'OPJ1'
const DONE = 0x454e4f44 // 'DONE'
const CHUNK_SIZE = 65536

export interface LegacySave { size: number; chunks: Map<number, Uint8Array> }

/** The save a complete journal holds, or `undefined` for an empty, torn or foreign one. */
export function readLegacyJournal(bytes: Uint8Array): LegacySave | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (b.length < 24 || b.readUInt32LE(0) !== MAGIC || b.readUInt32LE(b.length - 4) !== DONE) return undefined
  const count = b.readUInt32LE(4)
  const size = b.readDoubleLE(8)
  const chunks = new Map<number, Uint8Array>()
  let o = 16
  for (let i = 0; i < count; i++) {
    if (o + 8 > b.length - 8) return undefined
    const index = b.readUInt32LE(o)
    const length = b.readUInt32LE(o + 4)
    o += 8
    if (o + length > b.length - 8) return undefined
    chunks.set(index, b.subarray(o, o + length))
    o += length
  }
  if (o !== b.length - 8 || crc32(b.subarray(0, o)) !== b.readUInt32LE(o)) return undefined
  return { size, chunks }
}

/**
 * Finishes what a crash of the old format interrupted, for the database at `main`: applies a
 * complete `<name>.journal` (idempotent), then removes it.
 */
export function migrateLegacyJournal(main: string): void {
  const path = main.replace(/\.sqlite$/, '.journal')
  let bytes: Uint8Array
  try {
    bytes = readFileSync(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw err
  }
  const save = bytes.length ? readLegacyJournal(bytes) : undefined
  if (save) {
    const fd = openSync(main, constants.O_RDWR | constants.O_CREAT)
    try {
      for (const [index, data] of save.chunks) {
        const end = Math.min(data.byteLength, save.size - index * CHUNK_SIZE)
        for (let n = 0; n < end;) n += writeSync(fd, data, n, end - n, index * CHUNK_SIZE + n)
      }
      ftruncateSync(fd, save.size)
      fdatasyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }
  unlinkSync(path)
  syncDirSync(dirname(path))
}
