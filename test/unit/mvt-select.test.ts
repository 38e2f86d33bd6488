import { describe, expect, it } from 'vitest'
import sqlite3InitModule from '@sqlite.org/sqlite-wasm'
import { mayHoldMore, RtreeNodes, type NodeSource } from '../../sw/mvt/select.ts'
import { RowReader } from '../../sw/store/row-reader.ts'
import type { Bbox } from '../../sw/geo/geometry.ts'
import type { SqlDb } from '../../sw/store/database.ts'

const sqlite = await sqlite3InitModule()

/** A deterministic pseudo-random sequence. */
function random(seed: number) {
  return () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
}

/** An R*Tree of `n` small boxes, clustered as real data is (half in a corner). */
function tree(n: number): SqlDb {
  const db = new sqlite.oo1.DB(':memory:')
  db.exec('CREATE VIRTUAL TABLE r USING rtree(id, minx, maxx, miny, maxy)')
  const rnd = random(n)
  const st = db.prepare('INSERT INTO r VALUES (?, ?, ?, ?, ?)')
  db.transaction(() => {
    for (let i = 1; i <= n; i++) {
      const span = rnd() < 0.5 ? 100 : 1000
      const x = rnd() * span, y = rnd() * span, w = rnd() < 0.5 ? 0 : rnd() * 5
      st.bind([i, x, x + w, y, y + w]).stepReset()
    }
  })
  st.finalize()
  return db as unknown as SqlDb
}

/** The tree's nodes as a layer's storage hands them out (`GpkgTables.rtreeNode`). */
const nodesOf = (db: SqlDb): NodeSource => ({
  rtreeNode: (no) => db.selectValue('SELECT data FROM r_node WHERE nodeno = ?', [no]) as Uint8Array | undefined,
})

const countInBox = (db: SqlDb, box: Bbox) =>
  Number(db.selectValue('SELECT count(*) FROM r WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?', [box[2], box[0], box[3], box[1]]))

describe('mvt/select: mayHoldMore', () => {
  it('never says a box holds at most `limit` entries when it holds more, and spares the count for small boxes', () => {
    for (const n of [30, 5000, 40_000]) {
      const db = tree(n)
      const nodes = new RtreeNodes()
      const rnd = random(7)
      let spared = 0
      for (let k = 0; k < 300; k++) {
        const x = rnd() * 1000, y = rnd() * 1000, s = 10 ** (rnd() * 3.3)
        const box: Bbox = [x, y, x + s, y + s]
        const count = countInBox(db, box)
        for (const limit of [0, 20, 1000, 16_384]) {
          const more = mayHoldMore(nodesOf(db), nodes, box, limit)
          if (count > limit) expect(more, `${n} features, box ${box}, count ${count} > ${limit}`).toBe(true)
          if (!more) spared++
        }
      }
      // Most small boxes are answered from the inner nodes alone.
      expect(spared).toBeGreaterThan(300)
      db.close()
    }
  })

  it('is exact for a tree that is one leaf', () => {
    const db = tree(30)
    const nodes = new RtreeNodes()
    const all: Bbox = [-1, -1, 2000, 2000]
    expect(mayHoldMore(nodesOf(db), nodes, all, 30)).toBe(false)
    expect(mayHoldMore(nodesOf(db), nodes, all, 29)).toBe(true)
    db.close()
  })
})

describe('store/row-reader over a kept statement', () => {
  it('reads the rows of each binding, resets the statement for the next and finalizes only its own', () => {
    const db = tree(100)
    const sql = 'SELECT id FROM r WHERE minx <= ? ORDER BY id'
    const kept = db.prepare(sql)
    const ids = (limit: number) => {
      const r = new RowReader(sqlite, db, kept, [limit])
      const out: number[] = []
      try { while (r.step()) out.push(r.int(0)) } finally { r.finalize() }
      return out
    }
    const expected = (limit: number) => db.selectValues(sql, [limit])
    expect(ids(500)).toEqual(expected(500))
    expect(ids(50)).toEqual(expected(50))
    // A failing step throws SQLite's error, as oo1's step does.
    const bad = new RowReader(sqlite, db, "SELECT json_extract('not json', '$')")
    expect(() => bad.step()).toThrow(/malformed JSON/)
    bad.finalize()
    kept.finalize()
    db.close()
  })
})
