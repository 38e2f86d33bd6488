/**
 * @module postgres/main/principals
 * Users, groups and group membership (`PrincipalRead/Write`, tables `principal` and
 * `principal_member`), as sqlite/main/principals.ts. Keynames compare by
 * `lower(keyname COLLATE "C")` (ASCII folding, as SQLite's NOCASE; the unique index of
 * schema/auth.ts is on that expression), display names likewise (as SQLite's `lower`).
 */
import type { NewPrincipal, PrincipalRead, PrincipalRow, PrincipalWrite } from '../../auth/repository.ts'
import { patchColumns, toPrincipal, type UserRow } from '../../auth/rows.ts'
import type { PgConn } from '../conn.ts'
import { bindableId, bindableText } from '../params.ts'

/** `expr` folded as the unique index folds keynames. */
export const folded = (expr: string) => `lower(${expr} COLLATE "C")`

const IS_ADMIN = `EXISTS (SELECT 1 FROM principal_member m JOIN principal g ON g.id = m.group_id
  WHERE m.user_id = p.id AND ${folded('g.keyname')} = 'administrators') AS is_admin`
/** The columns of `p` (a principal) that make a `Principal`; sessions.ts joins them too. */
export const USER_COLUMNS = `p.id, p.keyname, p.display_name, ${IS_ADMIN}, p.disabled, p.password_hash, p.must_change_password, p.language`

const ROW_COLUMNS = 'id, cls, keyname, display_name, system, disabled, password_hash, language, description'

export const principalsRead = (db: PgConn): PrincipalRead => ({
  user: async (id) => {
    if (!bindableId(id)) return undefined
    const row = await db.row<UserRow>(`SELECT ${USER_COLUMNS} FROM principal p WHERE p.id = $1 AND p.cls = 'U'`, [id])
    return row && toPrincipal(row)
  },
  byLogin: async (login) => {
    if (!bindableText(login)) return undefined
    const row = await db.row<UserRow>(`SELECT ${USER_COLUMNS} FROM principal p
      WHERE ${folded('p.keyname')} = ${folded('$1::text')} AND p.cls = 'U' AND p.system = 0`, [login])
    return row && { principal: toPrincipal(row), passwordHash: row.password_hash }
  },
  row: async (id, cls) => {
    if (!bindableId(id)) return undefined
    const row = await db.row<PrincipalRow>(`SELECT ${ROW_COLUMNS} FROM principal WHERE id = $1`, [id])
    return row && (!cls || row.cls === cls) ? row : undefined
  },
  list: async (cls, systemOnly) => db.rows<PrincipalRow>(`SELECT ${ROW_COLUMNS} FROM principal WHERE cls = $1
    ${systemOnly ? 'AND system = 1' : ''} ORDER BY id`, [cls]),
  groupsOf: async (userId) =>
    (await db.rows<{ id: number }>('SELECT group_id AS id FROM principal_member WHERE user_id = $1 ORDER BY group_id', [userId])).map((r) => r.id),
  membersOf: async (groupId) =>
    (await db.rows<{ id: number }>('SELECT user_id AS id FROM principal_member WHERE group_id = $1 ORDER BY user_id', [groupId])).map((r) => r.id),
  idOf: async (keyname) => bindableText(keyname)
    ? db.value<number>(`SELECT id FROM principal WHERE ${folded('keyname')} = ${folded('$1::text')}`, [keyname]) : undefined,
  taken: async ({ keyname, cls, displayName, exceptId }) => {
    if (keyname !== undefined && await db.value(`SELECT 1 FROM principal
      WHERE ${folded('keyname')} = ${folded('$1::text')} AND id IS DISTINCT FROM $2::bigint`, [keyname, exceptId ?? null])) return true
    return displayName !== undefined && !!await db.value(`SELECT 1 FROM principal WHERE ($1::text IS NULL OR cls = $1::text)
      AND ${folded('display_name')} = ${folded('$2::text')} AND id IS DISTINCT FROM $3::bigint`, [cls ?? null, displayName, exceptId ?? null])
  },
  enabledAdministrators: async () => Number(await db.value(`SELECT count(*) FROM principal_member m JOIN principal u ON u.id = m.user_id
    JOIN principal g ON g.id = m.group_id WHERE ${folded('g.keyname')} = 'administrators' AND g.cls = 'G' AND u.disabled = 0`)),
  ownsResources: async (userId) => !!await db.value('SELECT 1 FROM resource WHERE owner_user_id = $1 LIMIT 1', [userId]),
  count: async () => Number(await db.value('SELECT count(*) FROM principal')),
})

export const principalsWrite = (db: PgConn): PrincipalWrite => ({
  ...principalsRead(db),
  insert: async (p: NewPrincipal) => {
    // Without a fixed id, the next after the largest ever used (schema/port.ts `outpost_reserve`, as AUTOINCREMENT).
    const id = Number(await db.value(`INSERT INTO principal (id, cls, keyname, display_name, description, system, disabled, password_hash,
      language, must_change_password) VALUES (coalesce($1, outpost_reserve('principal', 1)), $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
    [p.id ?? null, p.cls, p.keyname, p.displayName, p.description, p.system ? 1 : 0, p.disabled ? 1 : 0, p.passwordHash ?? null,
      p.language ?? null, p.mustChangePassword ? 1 : 0]))
    return id
  },
  update: async (id, patch) => {
    const sets = patchColumns(patch)
    if (sets.length) {
      await db.exec(`UPDATE principal SET ${sets.map(([column], i) => `${column} = $${i + 1}`).join(', ')} WHERE id = $${sets.length + 1}`,
        [...sets.map(([, v]) => v), id])
    }
  },
  // Memberships and sessions go by ON DELETE CASCADE.
  delete: async (id) => { await db.exec('DELETE FROM principal WHERE id = $1', [id]) },
  setLinks: async (cls, id, links) => {
    const [mine, theirs] = cls === 'U' ? ['user_id', 'group_id'] : ['group_id', 'user_id']
    await db.exec(`DELETE FROM principal_member WHERE ${mine} = $1`, [id])
    await db.exec(`INSERT INTO principal_member (${mine}, ${theirs}) SELECT DISTINCT $1::bigint, l FROM unnest($2::bigint[]) AS l`,
      [id, [...links]])
  },
})
