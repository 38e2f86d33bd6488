/**
 * @module postgres/blobs
 * Blobs (uploads, attachments, raster and bucket files) in the database, so every process sees
 * them: table `outpost_blob`, each blob in parts of up to 1 MiB (`bytea`). A streamed write puts
 * its parts in under a pending mark as they arrive (each its own short statement: no
 * transaction or connection is held while a slow client uploads), then one transaction swaps
 * them in for the old blob; a failed stream deletes its parts, and a process stopped mid-way
 * leaves pending parts that `listBlobs` reports and `deleteBlob` removes (the sweep's work).
 */
import type pg from 'pg'
import type { BlobStore } from '../port/port.ts'
import { inTransaction } from './conn.ts'

const PART = 2 ** 20

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size)
  let at = 0
  for (const p of parts) { out.set(p, at); at += p.length }
  return out
}

export function pgBlobs(pool: pg.Pool): BlobStore {
  async function* once(data: Uint8Array) { yield data }

  async function putStream(id: string, chunks: AsyncIterable<Uint8Array>): Promise<number> {
    const mark = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`
    let part = 0
    let size = 0
    let held: Uint8Array[] = []
    let heldSize = 0
    /** Writes the held bytes as whole parts; with `final`, the rest too (one empty part for an empty blob). */
    const flush = async (final: boolean) => {
      if (heldSize < PART && !(final && (heldSize > 0 || part === 0))) return
      let joined = concat(held, heldSize)
      while (joined.length >= PART || (final && (joined.length > 0 || part === 0))) {
        const take = Math.min(PART, joined.length)
        await pool.query('INSERT INTO outpost_blob (id, pending, part, data) VALUES ($1, $2, $3, $4)', [id, mark, part++, joined.subarray(0, take)])
        joined = joined.subarray(take)
        if (!joined.length) break
      }
      held = joined.length ? [joined.slice()] : []
      heldSize = joined.length
    }
    try {
      for await (const chunk of chunks) {
        held.push(chunk.slice())
        heldSize += chunk.length
        size += chunk.length
        await flush(false)
      }
      await flush(true)
      await inTransaction(pool, async (client) => {
        await client.query(`DELETE FROM outpost_blob WHERE id = $1 AND pending = ''`, [id])
        const moved = await client.query(`UPDATE outpost_blob SET pending = '' WHERE id = $1 AND pending = $2`, [id, mark])
        // A deleteBlob of this id while it streamed took some parts: the blob is gone, as asked.
        if (moved.rowCount !== part) throw new Error(`Blob '${id}' was deleted while it was being written.`)
      })
      return size
    } catch (err) {
      await pool.query('DELETE FROM outpost_blob WHERE id = $1 AND pending = $2', [id, mark]).catch(() => undefined)
      throw err
    }
  }

  return {
    putBlob: async (id, data) => { await putStream(id, once(data)) },
    putBlobStream: putStream,
    getBlob: async (id) => {
      const r = await pool.query<{ data: Buffer }>(`SELECT data FROM outpost_blob WHERE id = $1 AND pending = '' ORDER BY part`, [id])
      if (!r.rows.length) return undefined
      const parts = r.rows.map((row) => new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength))
      return concat(parts, parts.reduce((n, p) => n + p.length, 0))
    },
    deleteBlob: async (id) => { await pool.query('DELETE FROM outpost_blob WHERE id = $1', [id]) },
    listBlobs: async (prefix) =>
      (await pool.query<{ id: string }>('SELECT DISTINCT id FROM outpost_blob WHERE starts_with(id, $1) ORDER BY id', [prefix])).rows.map((r) => r.id),
  }
}
