/**
 * @module sqlite/migrate
 * The main database's schema, brought by its components: each lists its own steps
 * (`sqlite/schema/*.ts`) and `outpost_schema` records how many of each have run. They run in a
 * fixed order (a component's tables may refer to an earlier one's), inside the transaction that
 * opens the database, so a failed step leaves the database as it was.
 *
 * Before the split one counter (`PRAGMA user_version`, 1–9) numbered the steps of every
 * component together; such a database gets its per-component counts from `LEGACY` once, and
 * goes on from there. `user_version` is left as it was.
 */
import type { SqlDb } from '../store/database.ts'
import { authSchema } from './schema/auth.ts'
import { resourcesSchema } from './schema/resources.ts'
import { fieldsSchema } from './schema/fields.ts'
import { journalSchema } from './schema/journal.ts'
import { uploadsSchema } from './schema/uploads.ts'
import { filesSchema } from './schema/files.ts'
import { aclSchema } from './schema/acl.ts'
import type { ComponentSchema } from '../port/schema.ts'

export type { ComponentSchema }

/** In the order they run: auth's principals before the tree (the root's rules name a group), the ACL's triggers last. */
export const MAIN_SCHEMA: readonly ComponentSchema[] = [
  authSchema, resourcesSchema, fieldsSchema, journalSchema, uploadsSchema, filesSchema, aclSchema,
]

/** The old single counter's steps, as per-component counts: `LEGACY[v - 1]` is what `user_version = v` had run. */
const LEGACY: readonly Record<string, number>[] = (() => {
  const gained: Record<string, number>[] = [
    { auth: 1, resources: 1, fields: 1, journal: 1 }, { uploads: 1 }, { files: 1 }, { resources: 2 },
    { auth: 2 }, { auth: 3 }, { auth: 4, resources: 3 }, { acl: 1 }, { acl: 2 },
  ]
  const out: Record<string, number>[] = []
  for (const g of gained) out.push({ ...out.at(-1), ...g })
  return out
})()

/** How many steps of each component the database has run. */
function applied(db: SqlDb): Map<string, number> {
  const has = db.selectValue(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'outpost_schema'`) !== undefined
  if (has) return new Map(db.selectArrays('SELECT component, version FROM outpost_schema').map(([c, v]) => [String(c), Number(v)]))
  const legacy = Number(db.selectValue('PRAGMA user_version'))
  if (legacy > LEGACY.length) throw new Error(`The main database is from a newer version (user_version ${legacy}); this one knows ${LEGACY.length}.`)
  db.exec('CREATE TABLE outpost_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL)')
  const counts = new Map(Object.entries(legacy ? LEGACY[legacy - 1]! : {}))
  for (const [c, v] of counts) db.exec({ sql: 'INSERT INTO outpost_schema VALUES (?, ?)', bind: [c, v] })
  return counts
}

/** Brings the main database's schema up to date (`Database.open`'s migrate step). */
export function migrateMain(db: SqlDb, schema: readonly ComponentSchema[] = MAIN_SCHEMA): void {
  const done = applied(db)
  for (const { component, steps } of schema) {
    const from = done.get(component) ?? 0
    if (from > steps.length) throw new Error(`The main database's ${component} schema is from a newer version (step ${from}; this one knows ${steps.length}).`)
    if (from === steps.length) continue
    for (let v = from; v < steps.length; v++) db.exec(steps[v]!)
    db.exec({ sql: 'INSERT INTO outpost_schema VALUES (?, ?) ON CONFLICT (component) DO UPDATE SET version = excluded.version', bind: [component, steps.length] })
  }
}
