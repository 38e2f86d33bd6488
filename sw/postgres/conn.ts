/**
 * @module postgres/conn
 * What a repository of the PostgreSQL implementation gets: one connection inside its unit of
 * work's transaction, with the few ways it asks things. Counts and ids (`int8`) come back as
 * numbers (they stay far below 2^53), `numeric` too; nothing else is converted.
 */
import pg from 'pg'
import { validationError } from '../core/error.ts'

export interface PgConn {
  /** The rows of one statement (`$1`… bound to `params`). */
  rows<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]>
  /** Its first row, if any. */
  row<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T | undefined>
  /** The first column of its first row, if any. */
  value<T = unknown>(text: string, params?: readonly unknown[]): Promise<T | undefined>
  /** Runs it; returns how many rows it touched. */
  exec(text: string, params?: readonly unknown[]): Promise<number>
}

const INT8 = 20
const NUMERIC = 1700

/** The type parsers of every connection of ours: int8 and numeric as numbers. */
export const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => Number(v)
    return pg.types.getTypeParser(oid, format as 'text')
  }) as pg.CustomTypesConfig['getTypeParser'],
}

/**
 * PostgreSQL refuses text with a NUL character (U+0000), which SQLite stores: a client's value
 * (a field, a name, a description, a filter or search pattern), so a 422, never a 500 (the
 * statement, and with it the unit of work, is rolled back).
 */
function refusedText(err: unknown): never {
  const code = (err as { code?: string }).code
  if (code === '22021' || code === '22P05') throw validationError('Text must not contain the NUL character (U+0000).')
  // A number beyond BIGINT (ids are BIGINT, as SQLite's 64-bit integers): SQLite compares it as a
  // REAL and finds nothing (a 404); PostgreSQL refuses it, so here it is the client's number, a 422.
  if (code === '22003') throw validationError('A number is out of range (beyond ±2^63).')
  throw err
}

/**
 * An integer beyond ±2^53 written out in digits: pg would send `1e+29`, which no integer column
 * parses (a 500), where digits give the range error above (a 422) and a float column its value.
 */
const digits = (v: unknown): unknown => (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) ? BigInt(v).toString()
  : Array.isArray(v) ? v.map(digits) : v)
const exact = (params?: readonly unknown[]) => params?.map(digits)

export function connOf(client: pg.ClientBase): PgConn {
  const q = (text: string, params?: readonly unknown[]) => client.query(text, exact(params)).catch(refusedText)
  return {
    rows: async <T>(text: string, params?: readonly unknown[]) => (await q(text, params)).rows as T[],
    row: async <T>(text: string, params?: readonly unknown[]) => (await q(text, params)).rows[0] as T | undefined,
    value: async <T>(text: string, params?: readonly unknown[]) => {
      const r = await client.query({ text, values: exact(params), rowMode: 'array' }).catch(refusedText)
      return (r.rows[0] as unknown[] | undefined)?.[0] as T | undefined
    },
    exec: async (text, params) => (await q(text, params)).rowCount ?? 0,
  }
}

/** `fn` in one transaction on a connection of `pool`: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    const out = await fn(client)
    await client.query('COMMIT')
    return out
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw err
  } finally {
    client.release()
  }
}
