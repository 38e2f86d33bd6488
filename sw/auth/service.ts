/**
 * @module auth/service
 * Users, passwords and sessions. Verified Basic credentials are remembered by their SHA-256
 * so that PBKDF2 runs once per password, not once per request. Failed attempts are slowed
 * down per login name and client address (auth/rate-limit.ts). Sessions are stored by the
 * SHA-256 of their id: a copy of the database does not hand out live sessions.
 */
import type { AdminProvision } from '../platform/platform.ts'
import type { DataPort } from '../port/port.ts'
import { GUEST_ID, type Principal } from './types.ts'
import { hashPassword, sha256Hex, verifyNothing, verifyPassword } from './password.ts'
import { RateLimiter, type LimitPolicy } from './rate-limit.ts'
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

/** The user `id`, or `undefined` (a group's id, or none). */
export const getUser = (data: DataPort, id: number): Promise<Principal | undefined> => data.read((tx) => tx.principals.user(id))

/**
 * Creates the system principals and the administrator on a fresh database; on every start
 * applies `admin.password` again when the host forces it. Returns whether the administrator
 * was created now.
 */
export async function provisionUsers(data: DataPort, admin: AdminProvision & { force?: boolean }): Promise<boolean> {
  const exists = await data.read(async (tx) => await tx.principals.count() > 0)
  if (exists && !admin.force) return false
  const hash = await hashPassword(admin.password)
  await data.unitOfWork(async ({ principals }) => {
    if (exists) {
      const id = await principals.idOf('administrator')
      if (id !== undefined) await principals.update(id, { passwordHash: hash, mustChangePassword: false })
      return
    }
    const system = { system: true, description: null }
    await principals.insert({ id: GUEST_ID, cls: 'U', keyname: 'guest', displayName: 'Guest', ...system })
    await principals.insert({ id: 2, cls: 'U', keyname: 'everyone', displayName: 'Everyone', ...system })
    await principals.insert({ id: 3, cls: 'U', keyname: 'authenticated', displayName: 'Authenticated', ...system })
    await principals.insert({ id: 4, cls: 'U', keyname: 'administrator', displayName: 'Administrator', description: null,
      passwordHash: hash, mustChangePassword: admin.mustChange })
    await principals.insert({ id: 5, cls: 'G', keyname: 'administrators', displayName: 'Administrators', ...system })
    await principals.insert({ id: 6, cls: 'U', keyname: 'owner', displayName: 'Owner', ...system })
    await principals.setLinks('G', 5, [4])
  })
  return !exists
}

/** A user as read at one change token of the main data: valid while that token lasts. */
interface Cached {
  user: Principal
  token: string
}

export class Authenticator {
  /** sha256(login:password) → the user, for credentials already verified. */
  #verified = new Map<string, Cached>()
  #guest: Cached | undefined
  #limiter: RateLimiter
  #restored: Promise<void> | undefined

  constructor(private data: DataPort, private now: () => number = Date.now) {
    this.#limiter = new RateLimiter(now)
  }

  /** The guest user, read again only after the main data changed. */
  async guest(): Promise<Principal> {
    const token = this.data.tokens.current('main')
    if (this.#guest?.token !== token) this.#guest = { user: (await getUser(this.data, GUEST_ID))!, token }
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
    await (this.#restored ??= this.data.read((tx) => tx.loginLimits.load(this.now())).then((saved) => this.#limiter.restore(saved)))
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
    await this.data.unitOfWork((tx) => tx.loginLimits.save(entries, this.now())).catch(() => undefined)
  }

  async #verify(login: string, password: string): Promise<Principal | undefined> {
    const key = sha256Hex(`${login.toLowerCase()}\u0000${password}`)
    const hit = this.#verified.get(key)
    const token = this.data.tokens.current('main')
    if (hit?.token === token) return hit.user
    const found = await this.data.read((tx) => tx.principals.byLogin(login))
    // An unknown name costs the same PBKDF2 work as a known one: timing tells nothing.
    if (!found) return verifyNothing(password).then(() => undefined)
    const user = found.principal
    if (hit?.user.id !== user.id && !(await verifyPassword(password, found.passwordHash))) return undefined
    this.#verified.set(key, { user, token })
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
    await this.data.unitOfWork(async (tx) => {
      await tx.principals.update(userId, { passwordHash: hash, mustChangePassword: false })
      await tx.sessions.endAll(userId, keepSession)
    })
    this.forget(userId)
  }
}

/** The stored key of session id `sid`: its SHA-256, so the table holds nothing to log in with. */
export const sessionKey = (sid: string) => sha256Hex(sid)

/** Starts a session; returns its id, which only the cookie carries. */
export async function createSession(data: DataPort, userId: number, now: Date): Promise<string> {
  const id = Array.from(crypto.getRandomValues(new Uint8Array(24)), (b) => b.toString(16).padStart(2, '0')).join('')
  const key = sessionKey(id)
  const expires = new Date(now.getTime() + SESSION_MAX_AGE_S * 1000)
  await data.unitOfWork((tx) => tx.sessions.create(key, userId, now, expires))
  return id
}

/** The user of the live session stored under `key`, or `undefined`. */
export const sessionUser = (data: DataPort, key: string, now: Date): Promise<Principal | undefined> =>
  data.read((tx) => tx.sessions.user(key, now))

export async function deleteSession(data: DataPort, key: string): Promise<void> {
  await data.unitOfWork((tx) => tx.sessions.delete(key))
}
