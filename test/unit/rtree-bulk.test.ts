import { describe, expect, it } from 'vitest'
import sqlite3InitModule from '@sqlite.org/sqlite-wasm'
import { rtreeBulkInsert, valueDown, valueUp } from '../../sw/sqlite/rtree.ts'
import { insertMany } from '../../sw/store/bulk.ts'

const sqlite = await sqlite3InitModule()

/** A deterministic pseudo-random sequence. */
function random(seed: number) {
  return () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
}

function boxes(n: number, rnd: () => number, firstId: number): { ids: number[]; flat: number[] } {
  const ids: number[] = []
  const flat: number[] = []
  for (let i = 0; i < n; i++) {
    const x = (rnd() - 0.5) * 4e7, y = (rnd() - 0.3) * 1e7, w = rnd() < 0.5 ? 0 : rnd() * 1e4
    ids.push(firstId + i * 3)
    flat.push(x, y, x + w, y + w * 0.7)
  }
  return { ids, flat }
}

function tree() {
  const db = new sqlite.oo1.DB(':memory:')
  db.exec('CREATE VIRTUAL TABLE r USING rtree(id, minx, maxx, miny, maxy)')
  return db
}

function insertRows(db: InstanceType<typeof sqlite.oo1.DB>, b: { ids: number[]; flat: number[] }) {
  const st = db.prepare('INSERT INTO r VALUES (?, ?, ?, ?, ?)')
  b.ids.forEach((id, i) => st.bind([id, b.flat[4 * i]!, b.flat[4 * i + 2]!, b.flat[4 * i + 1]!, b.flat[4 * i + 3]!]).stepReset())
  st.finalize()
}

describe('R*Tree bulk load', () => {
  it('rounds coordinates outward to float32 exactly as SQLite does', () => {
    const db = tree()
    const rnd = random(7)
    const values = [0, 0.1, -0.1, 1 / 3, -1 / 3, 16777217, -16777217, 1e-45, 4e6 + 7.5, -1438778.7]
    for (let i = 0; i < 500; i++) values.push((rnd() - 0.5) * 10 ** (rnd() * 12))
    values.forEach((v, i) => db.exec({ sql: 'INSERT INTO r VALUES (?, ?, ?, 0, 1)', bind: [i, v, v] }))
    const stored = db.selectArrays('SELECT minx, maxx FROM r ORDER BY id')
    expect(stored).toEqual(values.map((v) => [valueDown(v), valueUp(v)]))
    db.close()
  })

  for (const [before, added] of [[0, 0], [0, 1], [0, 51], [0, 52], [0, 3000], [100, 200], [2000, 2500]] as const) {
    it(`stores the same boxes as row-by-row inserts (${before} + ${added})`, () => {
      const rnd = random(before * 31 + added + 1)
      const old = boxes(before, rnd, 1)
      const fresh = boxes(added, rnd, 1 + before * 3)
      const a = tree(), b = tree()
      insertRows(a, old)
      insertRows(b, old)
      insertRows(a, fresh)
      b.exec('BEGIN')
      rtreeBulkInsert(sqlite, b, 'r', fresh.ids, fresh.flat)
      b.exec('COMMIT')
      expect(b.selectValue(`SELECT rtreecheck('r')`)).toBe('ok')
      expect(b.selectArrays('SELECT * FROM r ORDER BY id')).toEqual(a.selectArrays('SELECT * FROM r ORDER BY id'))
      for (let k = 0; k < 30; k++) {
        const x = (rnd() - 0.5) * 4e7, y = (rnd() - 0.3) * 1e7, w = rnd() * 5e6
        const q = `SELECT id FROM r WHERE minx <= ${x + w} AND maxx >= ${x} AND miny <= ${y + w} AND maxy >= ${y} ORDER BY id`
        expect(b.selectValues(q)).toEqual(a.selectValues(q))
      }
      // SQLite keeps maintaining the packed tree: replace, add and delete through the table.
      const all = [...old.ids, ...fresh.ids]
      b.exec('BEGIN')
      for (let i = 0; i < Math.min(200, all.length); i++) {
        b.exec({ sql: 'INSERT OR REPLACE INTO r VALUES (?, 1, 2, 3, 4)', bind: [all[Math.floor(rnd() * all.length)]!] })
        b.exec({ sql: 'INSERT INTO r VALUES (?, ?, ?, 5, 6)', bind: [1e7 + i, i, i + 1] })
      }
      for (let i = 0; i < all.length / 2; i++) b.exec({ sql: 'DELETE FROM r WHERE id = ?', bind: [all[i]!] })
      b.exec('COMMIT')
      expect(b.selectValue(`SELECT rtreecheck('r')`)).toBe('ok')
      a.close()
      b.close()
    })
  }
})

describe('insertMany', () => {
  it('binds every kind of value as oo1 binds it', () => {
    const db = new sqlite.oo1.DB(':memory:')
    db.exec('CREATE TABLE t (a, b, c)')
    const rows = [
      [1, 'plain', null],
      [2 ** 40, 'Ünïcødé – 漢字 😀', new Uint8Array([1, 2, 3])],
      [-(2 ** 31), '', 1.5],
      [9007199254740993n, "it's", { byteLength: 2, writeTo: (v: DataView, at: number) => { v.setUint8(at, 7); v.setUint8(at + 1, 9) } }],
      [3.0, 'x'.repeat(10000), -0],
    ] as const
    insertMany(sqlite, db, 'INSERT INTO t', rows as never)
    const got = db.selectArrays('SELECT a, typeof(a), b, c, typeof(c) FROM t ORDER BY rowid')
    expect(got).toEqual([
      [1, 'integer', 'plain', null, 'null'],
      [2 ** 40, 'integer', 'Ünïcødé – 漢字 😀', new Uint8Array([1, 2, 3]), 'blob'],
      [-(2 ** 31), 'integer', '', 1.5, 'real'],
      [9007199254740993n, 'integer', "it's", new Uint8Array([7, 9]), 'blob'],
      [3, 'integer', 'x'.repeat(10000), 0, 'integer'],
    ])
    db.close()
  })

  it('inserts more rows than one statement takes, in order', () => {
    const db = new sqlite.oo1.DB(':memory:')
    db.exec('CREATE TABLE t (a, b, c)')
    const rows = Array.from({ length: 1000 }, (_, i) => [i, `r${i}`, i % 3 ? null : i / 4])
    insertMany(sqlite, db, 'INSERT INTO t (a, b, c)', rows)
    expect(db.selectArrays('SELECT a, b, c FROM t ORDER BY rowid')).toEqual(rows)
    db.close()
  })

  it('reports a failing row as an error', () => {
    const db = new sqlite.oo1.DB(':memory:')
    db.exec('CREATE TABLE t (a PRIMARY KEY)')
    expect(() => insertMany(sqlite, db, 'INSERT INTO t', [[1], [2], [1]])).toThrow(/UNIQUE/)
    db.close()
  })
})
