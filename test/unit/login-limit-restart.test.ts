import { beforeAll, describe, expect, it } from 'vitest'
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { Database } from '../../sw/store/database.ts'
import { MemoryStore } from '../../sw/store/memory.ts'
import { migrateMain } from '../../sw/sqlite/migrate.ts'
import { Authenticator } from '../../sw/auth/service.ts'
import { openSqlitePort } from '../../sw/sqlite/port.ts'

describe('the login limit across restarts', () => {
  let sqlite: Sqlite3Static
  beforeAll(async () => { sqlite = await createSqliteLoader()() })

  it('a new instance over the same database (a stopped worker, a restarted host) keeps counting', async () => {
    const store = new MemoryStore()
    // A restart: a new database connection and data port over the same store.
    const open = async () => openSqlitePort({ main: await Database.open(sqlite, store, 'main', migrateMain), store })
    let t = 1_700_000_000_000
    const first = new Authenticator(await open(), () => t)
    for (let i = 0; i < 5; i++) expect(await first.check('Bob', `guess ${i}`)).toBeUndefined()
    await expect(first.check('bob', 'guess 5')).rejects.toMatchObject({ status: 429 })

    // A restart: a new database connection and a new authenticator, the lock still on.
    const restarted = new Authenticator(await open(), () => t)
    await expect(restarted.check('bob', 'guess 6')).rejects.toMatchObject({ status: 429 })
    // Once the first lock (1 s) is over, the sixth failure locks for twice as long: the count went on.
    t += 1_100
    expect(await restarted.check('bob', 'guess 7')).toBeUndefined()
    t += 1_100
    const again = new Authenticator(await open(), () => t)
    await expect(again.check('bob', 'guess 8')).rejects.toMatchObject({ status: 429 })
    // An hour later, unlocked and unused, the key is forgotten and pruned by the next write.
    t += 3_700_000
    const data = await open()
    const later = new Authenticator(data, () => t)
    expect(await later.check('bob', 'guess 9')).toBeUndefined()
    const rows = await data.read((tx) => tx.loginLimits.load(t))
    expect(rows.map(([key, e]) => [key, e.failures])).toEqual([['login:bob', 1]])
  })
})
