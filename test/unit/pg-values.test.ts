/**
 * What PostgreSQL refuses that SQLite stores, answered as a client's mistake: a NUL character
 * in text is a 422 that changes nothing (a 500 before), and ids stay the same as SQLite's after
 * a rolled-back create (counter rows, not sequences).
 */
import { describe, expect, it } from 'vitest'
import { openPostgresData } from '../../sw/postgres/port.ts'
import { ApiError } from '../../sw/core/error.ts'
import { cluster } from '../pg/shared.ts'

const user = (keyname: string, displayName = keyname) => ({ cls: 'U' as const, keyname, displayName, description: null })

describe('PostgreSQL values', () => {
  it('a NUL character in text is a 422, and the unit of work leaves nothing', async () => {
    const port = await openPostgresData(await (await cluster()).database('values'))
    try {
      const err = await port.unitOfWork(async (tx) => {
        await tx.principals.insert(user('kept-not'))
        await tx.principals.insert(user('nul', 'a\u0000b'))
      }).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(ApiError)
      expect((err as ApiError).status).toBe(422)
      expect((err as ApiError).message).toBe('Text must not contain the NUL character (U+0000).')
      expect(await port.read(async (tx) => tx.principals.idOf('kept-not'))).toBeUndefined()
    } finally {
      await port.close()
    }
  })

  it('a rolled-back create takes no id: the next one gets it, as on SQLite', async () => {
    const port = await openPostgresData(await (await cluster()).database('values'))
    try {
      const first = await port.unitOfWork((tx) => tx.principals.insert(user('first')))
      await port.unitOfWork(async (tx) => { await tx.principals.insert(user('gone')); throw new Error('refused') }).catch(() => undefined)
      expect(await port.unitOfWork((tx) => tx.principals.insert(user('second')))).toBe(first + 1)
    } finally {
      await port.close()
    }
  })
})
