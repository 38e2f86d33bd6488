// port: legacy-sql (issue 22)
/**
 * @module auth/service
 * Users, passwords and sessions. Verified Basic credentials are remembered by their SHA-256
 * so that PBKDF2 runs once per password, not once per request. Failed attempts are slowed
 * down per login name and client address (auth/rate-limit.ts). Sessions are stored by the
 * SHA-256 of their id: a copy of the database does not hand out live sessions.
 */
import type { Database, SqlDb } from '../store/database.ts'
import type { AdminProvision } from '../platform/platform.ts'
import { GUEST_ID, type Principal } from './types.ts'
import { hashPassword, sha256Hex, verifyNothing, verifyPassword } from './password.ts'
import { RateLimiter, type LimitPolicy } from './rate-limit.ts'
import { loadLimits, saveLimits } from './limit-store.ts'
import { tooManyAttempts } from './errors.ts'

/**
 * A login from one client address gets 5 free failures; a client address, which many people may
 * share, 20 over all names. Across addresses a login gets 20 with short locks (a minute at most),
 * and that count stops only addresses that failed on this login themselves: wrong passwords
 * from elsewhere never lock a person out of their own address.
 */
const LOGIN_LIMIT: LimitPolicy = { free: 5 }
const PEER_LIMIT: LimitPolicy = { free: 20 }
const ACROSS_LIMIT: LimitPolicy = { free: 20, maxMs: 60_000 }

/** Sessions last 7 days, as the original's `session.cookie.max_age`. */
export const SESSION_MAX_AGE_S = 7 * 24 * 3600

interface PrincipalRow {
  id: number; keyname: string; display_name: string; is_admin: number; disabled: number
  password_hash: string | null; must_change_password: number; language: string | null
}

/** Membership of `administrators` (reference §5.1), as the `is_admin` of a user's row. */
const IS_ADMIN = `EXISTS (SELECT 1 FROM principal_member m JOIN principal g ON g.id = m.group_id
  WHERE m.user_id = p.id AND g.keyname = 'administrators') AS is_admin`
const COLUMNS = `p.id, p.keyname, p.display_name, ${IS_ADMIN}, p.disabled, p.password_hash, p.must_change_password, p.language`

function toPrincipal(r: PrincipalRow): Principal {
  return { id: r.id, keyname: r.keyname, displayName: r.display_name, isAdmin: !!r.is_admin,
    isGuest: r.id === GUEST_ID, disabled: !!r.disabled, mustChangePassword: !!r.must_change_password, language: r.language }
}

export function getUser(db: SqlDb, id: number): Principal | undefined {
  const row = db.selectObject(`SELECT ${COLUMNS} FROM principal p WHERE id = ? AND cls = 'U'`, [id]) as PrincipalRow | undefined
  return row && toPrincipal(row)
}

export function guest(db: SqlDb): Principal {
  return getUser(db, GUEST_ID)!
}

/**
 * Creates the system principals and the administrator on a fresh database; on every start
 * applies `admin.password` again when the host forces it. Returns whether the administrator
 * was created now.
 */
export async function provisionUsers(main: Database, admin: AdminProvision & { force?: boolean }): Promise<boolean> {
  const exists = await main.read((db) => db.selectValue(`SELECT count(*) FROM principal`) as number > 0)
  if (exists && !admin.force) return false
  const hash = await hashPassword(admin.password)
  await main.write((db) => {
    if (!exists) {
      const ins = `INSERT INTO principal (id, cls, keyname, display_name, system, is_admin, password_hash, must_change_password) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
      db.exec({ sql: ins, bind: [GUEST_ID, 'U', 'guest', 'Guest', 1, 0, null, 0] })
      db.exec({ sql: ins, bind: [2, 'U', 'everyone', 'Everyone', 1, 0, null, 0] })
      db.exec({ sql: ins, bind: [3, 'U', 'authenticated', 'Authenticated', 1, 0, null, 0] })
      db.exec({ sql: ins, bind: [4, 'U', 'administrator', 'Administrator', 0, 1, hash, admin.mustChange ? 1 : 0] })
      db.exec({ sql: ins, bind: [5, 'G', 'administrators', 'Administrators', 1, 1, null, 0] })
      db.exec({ sql: ins, bind: [6, 'U', 'owner', 'Owner', 1, 0, null, 0] })
      db.exec({ sql: `INSERT INTO principal_member (group_id, user_id) VALUES (5, 4)` })
    } else {
      db.exec({ sql: `UPDATE principal SET password_hash = ?, must_change_password = 0 WHERE keyname = 'administrator'`, bind: [hash] })
    }
  })
  return !exists
}

/** A user as read at one version of the main database: valid while that version lasts. */
interface Cached {
  user: Principal
  version: number
}

export class Authenticator {
  /** sha256(login:password) → the user, for credentials already verified. */
  #verified = new Map<string, Cached>()
  #guest: Cached | undefined
  #limiter: RateLimiter
  #restored: Promise<void> | undefined

  constructor(private main: Database, private now: () => number = Date.now) {
    this.#limiter = new RateLimiter(now)
  }

  /** The guest user, read again only after the main database changed. */
  async guest(): Promise<Principal> {
    const version = this.main.version
    if (this.#guest?.version !== version) this.#guest = { user: await this.main.read(guest), version }
    return this.#guest.user
  }

  /**
   * The user for a login and password, or `undefined` when they do not match. PBKDF2 runs
   * once per password; while the main database is unchanged not even the row is read again.
   */
  async check(login: string, password: string, peer?: string): Promise<Principal | undefined> {
    const name = login.toLowerCase()
    const loginKey = peer ? `login:${name}@${peer}` : `login:${name}`
    const acrossKey = `across:${name}`
    const keys: Array<[string, LimitPolicy]> = [[loginKey, LOGIN_LIMIT]]
    if (peer) keys.push([`peer:${peer}`, PEER_LIMIT], [acrossKey, ACROSS_LIMIT])
    // What an earlier instance (a stopped worker, a restarted host) counted still counts.
    await (this.#restored ??= this.main.read((db) => loadLimits(db, this.now())).then((saved) => this.#limiter.restore(saved)))
    // The count across addresses stops only an address with failures of its own on this login.
    const ownFailures = this.#limiter.entries([loginKey])[0]![1] !== undefined
    const wait = this.#limiter.retryAfter(keys.map(([k]) => k).filter((k) => k !== acrossKey || ownFailures))
    if (wait > 0) throw tooManyAttempts(wait)
    const user = await this.#verify(login, password)
    // A success clears only the login: a valid account of one's own must not reset the address.
    if (user) {
      if (this.#limiter.success([loginKey])) await this.#save([loginKey])
    } else {
      this.#limiter.failure(keys)
      await this.#save(keys.map(([k]) => k))
    }
    return user
  }

  /** Saves the limiter's state of `keys`; if the store refuses (full), the limit still holds in memory. */
  async #save(keys: string[]): Promise<void> {
    const entries = this.#limiter.entries(keys)
    await this.main.write((db) => saveLimits(db, entries, this.now())).catch(() => undefined)
  }

  async #verify(login: string, password: string): Promise<Principal | undefined> {
    const key = sha256Hex(`${login.toLowerCase()}\u0000${password}`)
    const hit = this.#verified.get(key)
    if (hit?.version === this.main.version) return hit.user
    const version = this.main.version
    const row = await this.main.read((db) =>
      db.selectObject(`SELECT ${COLUMNS} FROM principal p WHERE keyname = ? AND cls = 'U' AND system = 0`, [login]) as PrincipalRow | undefined)
    // An unknown name costs the same PBKDF2 work as a known one: timing tells nothing.
    if (!row) return verifyNothing(password).then(() => undefined)
    if (hit?.user.id !== row.id && !(await verifyPassword(password, row.password_hash))) return undefined
    const user = toPrincipal(row)
    this.#verified.set(key, { user, version })
    return user
  }

  /** Forgets every verified credential of `userId` (after a password change). */
  forget(userId: number): void {
    for (const [k, c] of this.#verified) if (c.user.id === userId) this.#verified.delete(k)
  }

  /**
   * Sets a password and ends every session of the user but `keepSession` (the key of the
   * session that made the change, if one did), in the same write.
   */
  async setPassword(userId: number, password: string, keepSession?: string): Promise<void> {
    const hash = await hashPassword(password)
    await this.main.write((db) => {
      db.exec({ sql: `UPDATE principal SET password_hash = ?, must_change_password = 0 WHERE id = ?`, bind: [hash, userId] })
      db.exec({ sql: `DELETE FROM session WHERE user_id = ? AND id IS NOT ?`, bind: [userId, keepSession ?? null] })
    })
    this.forget(userId)
  }
}

/** The stored key of session id `sid`: its SHA-256, so the table holds nothing to log in with. */
export const sessionKey = (sid: string) => sha256Hex(sid)

/** Starts a session; returns its id, which only the cookie carries. */
export async function createSession(main: Database, userId: number, now: Date): Promise<string> {
  const id = Array.from(crypto.getRandomValues(new Uint8Array(24)), (b) => b.toString(16).padStart(2, '0')).join('')
  const key = sessionKey(id)
  const expires = new Date(now.getTime() + SESSION_MAX_AGE_S * 1000)
  await main.write((db) => {
    db.exec({ sql: `DELETE FROM session WHERE expires < ?`, bind: [now.toISOString()] })
    db.exec({ sql: `INSERT INTO session (id, user_id, created, expires) VALUES (?, ?, ?, ?)`,
      bind: [key, userId, now.toISOString(), expires.toISOString()] })
  })
  return id
}

/** The user of the live session stored under `key`, or `undefined`. */
export function sessionUser(db: SqlDb, key: string, now: Date): Principal | undefined {
  const row = db.selectObject(`SELECT ${COLUMNS} FROM session s JOIN principal p ON p.id = s.user_id
      WHERE s.id = ? AND s.expires > ?`, [key, now.toISOString()]) as PrincipalRow | undefined
  return row && !row.disabled ? toPrincipal(row) : undefined
}

export async function deleteSession(main: Database, key: string): Promise<void> {
  await main.write((db) => { db.exec({ sql: `DELETE FROM session WHERE id = ?`, bind: [key] }) })
}
