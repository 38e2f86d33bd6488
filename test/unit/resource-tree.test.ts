import { beforeEach, describe, expect, it } from 'vitest'
import { Database } from '../../sw/store/database.ts'
import { MemoryStore } from '../../sw/store/memory.ts'
import { migrateMain } from '../../sw/sqlite/migrate.ts'
import { guardTree } from '../../sw/sqlite/main/resources.ts'
import { ApiError } from '../../sw/core/error.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'

const sqlite = createSqliteLoader()

/** The main database with a root (0), a child (1) and a grandchild (2). */
async function tree(): Promise<Database> {
  const main = await Database.open(await sqlite(), new MemoryStore(), 'main', migrateMain)
  await main.write((db) => db.exec(`INSERT INTO resource (id, cls, parent_id, display_name, owner_user_id, creation_date) VALUES
    (0, 'resource_group', NULL, 'root', 4, '2024-01-01T00:00:00'),
    (1, 'resource_group', 0, 'a', 4, '2024-01-01T00:00:00'),
    (2, 'resource_group', 1, 'b', 4, '2024-01-01T00:00:00')`))
  return main
}

const parents = (main: Database) => main.read((db) => db.selectArrays('SELECT id, parent_id FROM resource ORDER BY id'))

/** The ApiError a write of `sql` ends with, through the service's mapping. */
async function refusal(main: Database, sql: string): Promise<ApiError> {
  const err = await main.write((db) => guardTree(() => db.exec(sql))).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(ApiError)
  return err as ApiError
}

describe('the tree invariants in the main database', () => {
  let main: Database
  beforeEach(async () => { main = await tree() })

  it('refuses to delete the root, also as part of a larger delete', async () => {
    expect((await refusal(main, 'DELETE FROM resource WHERE id = 0')).exception).toBe('nextgisweb.resource.exception.ResourceRootDeleteError')
    await refusal(main, 'DELETE FROM resource')
    expect(await parents(main)).toEqual([[0, null], [1, 0], [2, 1]])
  })

  it('refuses to move the root or change its id', async () => {
    const moved = await refusal(main, 'UPDATE resource SET parent_id = 2 WHERE id = 0')
    expect(moved.status).toBe(422)
    expect(moved.exception).toBe('nextgisweb.resource.exception.HierarchyError')
    await refusal(main, 'UPDATE resource SET id = 7 WHERE id = 0')
    expect(await parents(main)).toEqual([[0, null], [1, 0], [2, 1]])
  })

  it('refuses cycles and resources without a parent', async () => {
    expect((await refusal(main, 'UPDATE resource SET parent_id = 2 WHERE id = 1')).message).toMatch(/descendants/)
    await refusal(main, 'UPDATE resource SET parent_id = 1 WHERE id = 1')
    await refusal(main, 'UPDATE resource SET parent_id = NULL WHERE id = 2')
    await refusal(main, `INSERT INTO resource (cls, parent_id, display_name, owner_user_id, creation_date) VALUES ('resource_group', NULL, 'x', 4, '')`)
    expect(await parents(main)).toEqual([[0, null], [1, 0], [2, 1]])
  })

  it('still allows ordinary moves and deletes', async () => {
    await main.write((db) => guardTree(() => db.exec('UPDATE resource SET parent_id = 0 WHERE id = 2')))
    await main.write((db) => guardTree(() => db.exec('DELETE FROM resource WHERE id = 1')))
    expect(await parents(main)).toEqual([[0, null], [2, 0]])
  })
})
