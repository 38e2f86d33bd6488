/**
 * The main database's schema brought by its components (sw/sqlite/migrate.ts): a new database
 * and one made by any earlier release (one counter, `user_version` 1–9; the old steps are kept
 * in test/fixtures/legacy-main-schema.ts) end with the same schema, what the old steps would
 * still have done to the data is done once, and no step runs twice.
 */
import { describe, expect, it } from 'vitest'
import type { Database as SqlDb } from '@sqlite.org/sqlite-wasm'
import { MAIN_SCHEMA, migrateMain } from '../../sw/sqlite/migrate.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { migrateLegacy } from '../fixtures/legacy-main-schema.ts'

const sqlite = createSqliteLoader()

async function memoryDb(): Promise<SqlDb> {
  return new (await sqlite()).oo1.DB(':memory:')
}

/** Everything the schema holds except the bookkeeping table, by name. */
function schemaOf(db: SqlDb): unknown[] {
  return db.selectArrays(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name <> 'outpost_schema' ORDER BY type, name`)
}

function versionsOf(db: SqlDb): Record<string, number> {
  return Object.fromEntries(db.selectArrays('SELECT component, version FROM outpost_schema').map(([c, v]) => [c, v]))
}

const latest = Object.fromEntries(MAIN_SCHEMA.map((s) => [s.component, s.steps.length]))

describe('main schema per component', () => {
  it('a new database gets every step of every component, recorded per component; opening it again runs none', async () => {
    const db = await memoryDb()
    migrateMain(db)
    expect(versionsOf(db)).toEqual(latest)
    expect(schemaOf(db).length).toBeGreaterThan(20)
    const before = schemaOf(db)
    migrateMain(db) // a step run twice would fail (CREATE TABLE of an existing table) or change the schema
    expect(schemaOf(db)).toEqual(before)
    expect(versionsOf(db)).toEqual(latest)
  })

  for (const v of [1, 3, 4, 6, 7, 8, 9]) {
    it(`a database of an earlier release (user_version ${v}) carries on to the schema of a new one`, async () => {
      const fresh = await memoryDb()
      migrateMain(fresh)
      const old = await memoryDb()
      migrateLegacy(old, v)
      migrateMain(old)
      expect(schemaOf(old)).toEqual(schemaOf(fresh))
      expect(versionsOf(old)).toEqual(latest)
      expect(old.selectValue('PRAGMA user_version')).toBe(v)
    })
  }

  it("the old step 7's data changes happen once on a database from before it: administrators join the group, the root gets its rules", async () => {
    const db = await memoryDb()
    migrateLegacy(db, 6)
    db.exec(`INSERT INTO principal (id, cls, keyname, display_name, is_admin) VALUES (1, 'G', 'administrators', 'Administrators', 0),
      (2, 'G', 'authenticated', 'Authenticated', 0), (3, 'U', 'administrator', 'Administrator', 1), (4, 'U', 'guest', 'Guest', 0);
      INSERT INTO resource (id, cls, parent_id, display_name, owner_user_id, creation_date) VALUES (0, 'resource_group', NULL, 'Main', 3, '2026-01-01')`)
    migrateMain(db)
    expect(db.selectArrays('SELECT group_id, user_id FROM principal_member')).toEqual([[1, 3]])
    const rules = JSON.parse(String(db.selectValue('SELECT permissions FROM resource WHERE id = 0'))) as { principal: { id: number } }[]
    expect(rules.map((r) => r.principal.id)).toEqual([1, 2])
    expect(db.selectValue('SELECT version FROM acl_state')).toBe(0)
    // Already carried over: nothing of it runs again.
    db.exec('DELETE FROM principal_member')
    migrateMain(db)
    expect(db.selectArrays('SELECT group_id, user_id FROM principal_member')).toEqual([])
  })

  it("a database past the old step 7 keeps a root whose rules were cleared since: the step is not run again", async () => {
    const db = await memoryDb()
    migrateLegacy(db, 7)
    db.exec(`INSERT INTO principal (id, cls, keyname, display_name, is_admin) VALUES (1, 'G', 'administrators', 'Administrators', 0), (2, 'G', 'authenticated', 'Authenticated', 0);
      INSERT INTO resource (id, cls, parent_id, display_name, owner_user_id, creation_date) VALUES (0, 'resource_group', NULL, 'Main', 1, '2026-01-01')`)
    migrateMain(db)
    expect(db.selectValue('SELECT permissions FROM resource WHERE id = 0')).toBe('[]')
  })

  it('a component added later runs on a database that has the others, alone', async () => {
    const db = await memoryDb()
    migrateMain(db)
    const extra = { component: 'extra', steps: ['CREATE TABLE extra_thing (id INTEGER PRIMARY KEY)'] }
    migrateMain(db, [...MAIN_SCHEMA, extra])
    expect(versionsOf(db)).toEqual({ ...latest, extra: 1 })
    expect(db.selectValue(`SELECT name FROM sqlite_master WHERE name = 'extra_thing'`)).toBe('extra_thing')
  })

  it('a database from a newer release is refused, not half-migrated', async () => {
    const db = await memoryDb()
    migrateMain(db)
    db.exec(`UPDATE outpost_schema SET version = 99 WHERE component = 'auth'`)
    expect(() => migrateMain(db)).toThrow(/auth schema is from a newer version/)
    const legacy = await memoryDb()
    legacy.exec('PRAGMA user_version = 10')
    expect(() => migrateMain(legacy)).toThrow(/newer version \(user_version 10\)/)
  })
})
