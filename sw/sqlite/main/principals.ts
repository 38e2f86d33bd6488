/**
 * @module sqlite/main/principals
 * Users, groups and group membership in the main database (`PrincipalRead/Write`, tables
 * `principal` and `principal_member`). The rules (system principals, an enabled administrator,
 * who may be a member) stay in auth/principals.ts; this file only stores.
 */
import type { SqlDb } from '../../store/database.ts'
import type { NewPrincipal, PrincipalRead, PrincipalRow, PrincipalWrite } from '../../auth/repository.ts'
import { patchColumns, toPrincipal, type UserRow } from '../../auth/rows.ts'

const IS_ADMIN = `EXISTS (SELECT 1 FROM principal_member m JOIN principal g ON g.id = m.group_id
  WHERE m.user_id = p.id AND g.keyname = 'administrators') AS is_admin`
/** The columns of `p` (a principal) that make a `Principal`; sessions.ts joins them too. */
export const USER_COLUMNS = `p.id, p.keyname, p.display_name, ${IS_ADMIN}, p.disabled, p.password_hash, p.must_change_password, p.language`

const ROW_COLUMNS = 'id, cls, keyname, display_name, system, disabled, password_hash, language, description'

export const principalsRead = (db: SqlDb): PrincipalRead => {
  const idOf = (keyname: string) => db.selectValue(`SELECT id FROM principal WHERE keyname = ?`, [keyname]) as number | undefined
  return {
    user: async (id) => {
      const row = db.selectObject(`SELECT ${USER_COLUMNS} FROM principal p WHERE id = ? AND cls = 'U'`, [id]) as UserRow | undefined
      return row && toPrincipal(row)
    },
    byLogin: async (login) => {
      const row = db.selectObject(`SELECT ${USER_COLUMNS} FROM principal p WHERE keyname = ? AND cls = 'U' AND system = 0`, [login]) as UserRow | undefined
      return row && { principal: toPrincipal(row), passwordHash: row.password_hash }
    },
    row: async (id, cls) => {
      const row = db.selectObject(`SELECT ${ROW_COLUMNS} FROM principal WHERE id = ?`, [id]) as PrincipalRow | undefined
      return row && (!cls || row.cls === cls) ? row : undefined
    },
    list: async (cls, systemOnly) => db.selectObjects(`SELECT ${ROW_COLUMNS} FROM principal WHERE cls = ? ${systemOnly ? 'AND system = 1' : ''}
      ORDER BY id`, [cls]) as unknown as PrincipalRow[],
    groupsOf: async (userId) =>
      (db.selectValues(`SELECT group_id FROM principal_member WHERE user_id = ? ORDER BY group_id`, [userId]) as number[]).map(Number),
    membersOf: async (groupId) =>
      (db.selectValues(`SELECT user_id FROM principal_member WHERE group_id = ? ORDER BY user_id`, [groupId]) as number[]).map(Number),
    idOf: async (keyname) => idOf(keyname),
    taken: async ({ keyname, cls, displayName, exceptId }) => {
      if (keyname !== undefined
        && db.selectValue(`SELECT 1 FROM principal WHERE keyname = ? COLLATE NOCASE AND id IS NOT ?`, [keyname, exceptId ?? null])) return true
      return displayName !== undefined && !!db.selectValue(`SELECT 1 FROM principal WHERE (? IS NULL OR cls = ?)
        AND lower(display_name) = lower(?) AND id IS NOT ?`, [cls ?? null, cls ?? null, displayName, exceptId ?? null])
    },
    enabledAdministrators: async () => Number(db.selectValue(`SELECT count(*) FROM principal_member m JOIN principal u ON u.id = m.user_id
      JOIN principal g ON g.id = m.group_id WHERE g.keyname = 'administrators' AND g.cls = 'G' AND u.disabled = 0`)),
    ownsResources: async (userId) => !!db.selectValue(`SELECT 1 FROM resource WHERE owner_user_id = ? LIMIT 1`, [userId]),
    count: async () => Number(db.selectValue(`SELECT count(*) FROM principal`)),
  }
}

export const principalsWrite = (db: SqlDb): PrincipalWrite => ({
  ...principalsRead(db),
  insert: async (p: NewPrincipal) => {
    db.exec({ sql: `INSERT INTO principal (id, cls, keyname, display_name, description, system, disabled, password_hash, language,
      must_change_password) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, bind: [p.id ?? null, p.cls, p.keyname, p.displayName,
      p.description, p.system ? 1 : 0, p.disabled ? 1 : 0, p.passwordHash ?? null, p.language ?? null, p.mustChangePassword ? 1 : 0] })
    return Number(db.selectValue('SELECT last_insert_rowid()'))
  },
  update: async (id, patch) => {
    const sets = patchColumns(patch)
    if (sets.length) {
      db.exec({ sql: `UPDATE principal SET ${sets.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?`,
        bind: [...sets.map(([, v]) => v), id] as never })
    }
  },
  delete: async (id) => { db.exec({ sql: `DELETE FROM principal WHERE id = ?`, bind: [id] }) },
  setLinks: async (cls, id, links) => {
    db.exec({ sql: `DELETE FROM principal_member WHERE ${cls === 'U' ? 'user_id' : 'group_id'} = ?`, bind: [id] })
    for (const l of new Set(links)) {
      db.exec({ sql: `INSERT INTO principal_member (group_id, user_id) VALUES (?, ?)`, bind: cls === 'U' ? [l, id] : [id, l] })
    }
  },
})
