/**
 * @module postgres/params
 * Lookup values PostgreSQL refuses where SQLite just finds no row: a number beyond BIGINT (a
 * path id of 20 digits) fails the statement, and so does a NUL character in text. A lookup by
 * such a value answers "not found" without asking, as SQLite's would.
 */

/** Whether `id` can be bound to a BIGINT column (it can be stored at all). */
export const bindableId = (id: number): boolean => Number.isSafeInteger(id)

/** Whether `text` can be bound to a TEXT column (PostgreSQL's text holds no NUL). */
export const bindableText = (text: string): boolean => !text.includes('\u0000')
