/**
 * The auth component's part of the data port's contract (sw/auth/repository.ts): principals,
 * sessions and login limits as any implementation must keep them. Run by test/port/contract.ts
 * inside each of its modes (as is, and with `fn` replayed), so by test/unit/port.test.ts over
 * every store. `ownsResources` is not here: it needs resources written through the port (WP-A);
 * the users routes cover it ("User is referenced with resources").
 */
import { describe, expect, it } from 'vitest'
import type { DataPort, MainWrite } from '../../sw/port/port.ts'
import type { NewPrincipal } from '../../sw/auth/repository.ts'
import { FORGET_MS } from '../../sw/auth/rate-limit.ts'

const U = (keyname: string, more: Partial<NewPrincipal> = {}): NewPrincipal =>
  ({ cls: 'U', keyname, displayName: keyname.toUpperCase(), description: null, ...more })
const G = (keyname: string, more: Partial<NewPrincipal> = {}): NewPrincipal =>
  ({ cls: 'G', keyname, displayName: keyname.toUpperCase(), description: null, ...more })

/** The guest (id 1), the administrators group and its administrator, and a user `ann`. */
async function seed(tx: MainWrite) {
  await tx.principals.insert(U('guest', { id: 1, system: true }))
  const admins = await tx.principals.insert(G('administrators', { system: true }))
  const admin = await tx.principals.insert(U('administrator', { passwordHash: 'h-admin', mustChangePassword: true }))
  const ann = await tx.principals.insert(U('ann', { passwordHash: 'h-ann', language: 'de', description: 'Ann' }))
  await tx.principals.setLinks('G', admins, [admin])
  return { admins, admin, ann }
}

const DAY = 24 * 3600_000

export function authCases(mode: string, fresh: () => Promise<{ port: DataPort }>): void {
  describe(`principals (${mode})`, () => {
    it('stores users and groups: fixed or next ids, rows, listings by id, logins by keyname in any case, the user as the backend sees it', async () => {
      const { port } = await fresh()
      const ids = await port.unitOfWork(seed)
      expect(ids.admins).toBeGreaterThan(1)
      expect(new Set(Object.values(ids)).size).toBe(3)
      await port.read(async ({ principals }) => {
        expect(await principals.count()).toBe(4)
        expect(await principals.idOf('administrators')).toBe(ids.admins)
        expect(await principals.idOf('nobody')).toBeUndefined()
        expect(await principals.row(ids.ann)).toEqual({ id: ids.ann, cls: 'U', keyname: 'ann', display_name: 'ANN', system: 0,
          disabled: 0, password_hash: 'h-ann', language: 'de', description: 'Ann' })
        expect(await principals.row(ids.ann, 'G')).toBeUndefined()
        expect(await principals.row(999)).toBeUndefined()
        expect((await principals.list('U', false)).map((r) => r.keyname)).toEqual(['guest', 'administrator', 'ann'])
        expect((await principals.list('U', true)).map((r) => r.keyname)).toEqual(['guest'])
        expect((await principals.list('G', false)).map((r) => r.id)).toEqual([ids.admins])
        expect(await principals.user(ids.admin)).toEqual({ id: ids.admin, keyname: 'administrator', displayName: 'ADMINISTRATOR',
          isAdmin: true, isGuest: false, disabled: false, mustChangePassword: true, language: null })
        expect(await principals.user(1)).toMatchObject({ keyname: 'guest', isGuest: true, isAdmin: false })
        expect(await principals.user(ids.admins)).toBeUndefined()
        expect(await principals.byLogin('ann')).toEqual({ principal: await principals.user(ids.ann), passwordHash: 'h-ann' })
        // Keynames compare case-insensitively (as the original's login), and system users never log in.
        expect((await principals.byLogin('ANN'))?.principal.id).toBe(ids.ann)
        expect(await principals.idOf('Administrators')).toBe(ids.admins)
        expect(await principals.byLogin('guest')).toBeUndefined()
      })
    })

    it('memberships are replaced whole from either side, duplicates once, in id order; deleting a principal drops them and its sessions', async () => {
      const { port } = await fresh()
      const { admins, admin, ann } = await port.unitOfWork(seed)
      const other = await port.unitOfWork((tx) => tx.principals.insert(G('editors')))
      await port.unitOfWork((tx) => tx.principals.setLinks('U', ann, [other, admins, other]))
      expect(await port.read(async ({ principals }) => [await principals.groupsOf(ann), await principals.membersOf(admins)]))
        .toEqual([[admins, other], [admin, ann]])
      await port.unitOfWork((tx) => tx.principals.setLinks('G', admins, [ann]))
      expect(await port.read(async ({ principals }) => [await principals.groupsOf(admin), await principals.groupsOf(ann)]))
        .toEqual([[], [admins, other]])
      await port.unitOfWork((tx) => tx.sessions.create('k-ann', ann, new Date(0), new Date(DAY)))
      await port.unitOfWork((tx) => tx.principals.delete(ann))
      expect(await port.read(async ({ principals, sessions }) => [await principals.row(ann), await principals.membersOf(other),
        await principals.membersOf(admins), await sessions.user('k-ann', new Date(1))])).toEqual([undefined, [], [], undefined])
    })

    it('counts enabled administrators; a patch changes only what it names (null clears); a rolled-back change leaves nothing', async () => {
      const { port } = await fresh()
      const { admins, admin, ann } = await port.unitOfWork(seed)
      expect(await port.read((tx) => tx.principals.enabledAdministrators())).toBe(1)
      await port.unitOfWork((tx) => tx.principals.setLinks('G', admins, [admin, ann]))
      await port.unitOfWork((tx) => tx.principals.update(admin, { disabled: true }))
      expect(await port.read((tx) => tx.principals.enabledAdministrators())).toBe(1)
      await port.unitOfWork((tx) => tx.principals.update(ann, { displayName: 'Ann B', language: null, passwordHash: null }))
      expect(await port.read((tx) => tx.principals.row(ann))).toMatchObject({ keyname: 'ann', display_name: 'Ann B', language: null,
        password_hash: null, description: 'Ann', disabled: 0 })
      await port.unitOfWork(async (tx) => {
        await tx.principals.update(ann, { keyname: 'lost', disabled: true })
        await tx.principals.insert(U('lost-too'))
        throw new Error('no')
      }).catch(() => undefined)
      await port.read(async ({ principals }) => {
        expect(await principals.row(ann)).toMatchObject({ keyname: 'ann', disabled: 0 })
        expect(await principals.count()).toBe(4)
        expect(await principals.enabledAdministrators()).toBe(1)
      })
    })

    it('a keyname is taken case-insensitively across users and groups, a display name within its class; a principal never clashes with itself', async () => {
      const { port } = await fresh()
      const { admins, ann } = await port.unitOfWork(seed)
      await port.read(async ({ principals }) => {
        expect(await principals.taken({ keyname: 'ANN' })).toBe(true)
        expect(await principals.taken({ keyname: 'Administrators' })).toBe(true)
        expect(await principals.taken({ keyname: 'ann', exceptId: ann })).toBe(false)
        expect(await principals.taken({ keyname: 'bob' })).toBe(false)
        expect(await principals.taken({ cls: 'U', displayName: 'ann' })).toBe(true)
        expect(await principals.taken({ cls: 'G', displayName: 'ann' })).toBe(false)
        expect(await principals.taken({ cls: 'G', displayName: 'Administrators', exceptId: admins })).toBe(false)
        expect(await principals.taken({ cls: 'U', displayName: 'Administrators' })).toBe(false)
      })
    })
    it('keeps keynames unique case-insensitively itself; ids go on after fixed ones and a deleted one is not handed out again', async () => {
      const { port } = await fresh()
      await port.unitOfWork(async (tx) => {
        for (const [id, keyname] of ['guest', 'everyone', 'authenticated', 'administrator'].entries()) {
          await tx.principals.insert(U(keyname, { id: id + 1, system: keyname !== 'administrator' }))
        }
        await tx.principals.insert(G('administrators', { id: 5, system: true }))
        await tx.principals.insert(U('owner', { id: 6, system: true }))
      })
      // Past the components' own check (`taken`), the storage still refuses a second 'ann' of any case or class.
      const ann = await port.unitOfWork((tx) => tx.principals.insert(U('ann')))
      const clash = await port.unitOfWork((tx) => tx.principals.insert(G('ANN'))).then(() => undefined, (e: unknown) => e)
      expect(clash).toBeInstanceOf(Error)
      expect(await port.read((tx) => tx.principals.count())).toBe(7)
      expect(ann).toBeGreaterThan(6)
      await port.unitOfWork((tx) => tx.principals.delete(ann))
      expect(await port.unitOfWork((tx) => tx.principals.insert(U('bob')))).toBeGreaterThan(ann)
    })

    it('case folds ASCII letters only, as SQLite: Ä and ä are different letters to a display name', async () => {
      const { port } = await fresh()
      await port.unitOfWork(async (tx) => { await seed(tx); await tx.principals.insert(U('eve', { displayName: 'Ärger' })) })
      await port.read(async ({ principals }) => {
        expect(await principals.taken({ cls: 'U', displayName: 'äRGER' })).toBe(false)
        expect(await principals.taken({ cls: 'U', displayName: 'Ärger' })).toBe(true)
        expect(await principals.taken({ cls: 'U', displayName: 'ÄRGER' })).toBe(true)
        expect((await principals.byLogin('EVE'))?.principal.keyname).toBe('eve')
      })
    })

    it('an id or a login no principal can have is just not found: a 20-digit id, a NUL in a login', async () => {
      const { port } = await fresh()
      const { ann } = await port.unitOfWork(seed)
      await port.read(async ({ principals }) => {
        for (const id of [5_000_000_000, 1e20]) {
          expect(await principals.row(id)).toBeUndefined()
          expect(await principals.user(id)).toBeUndefined()
        }
        expect(await principals.byLogin('ann\u0000')).toBeUndefined()
        expect(await principals.idOf('ann\u0000')).toBeUndefined()
        expect((await principals.byLogin('ann'))?.principal.id).toBe(ann)
      })
    })
  })

  describe(`sessions (${mode})`, () => {
    it('a session names its user until it expires, never a disabled one; ending them keeps only the one asked for', async () => {
      const { port } = await fresh()
      const { admin, ann } = await port.unitOfWork(seed)
      const t = (h: number) => new Date(Date.UTC(2026, 0, 1) + h * 3600_000)
      await port.unitOfWork(async ({ sessions }) => {
        await sessions.create('a1', ann, t(0), t(10))
        await sessions.create('a2', ann, t(0), t(10))
        await sessions.create('a3', ann, t(0), t(10))
        await sessions.create('b1', admin, t(0), t(10))
      })
      await port.read(async ({ sessions, principals }) => {
        expect(await sessions.user('a1', t(9))).toEqual(await principals.user(ann))
        expect(await sessions.user('a1', t(10))).toBeUndefined()
        expect(await sessions.user('nope', t(1))).toBeUndefined()
      })
      await port.unitOfWork((tx) => tx.sessions.delete('a3'))
      await port.unitOfWork((tx) => tx.sessions.endAll(ann, 'a2'))
      expect(await port.read(async ({ sessions }) => Promise.all(['a1', 'a2', 'a3', 'b1'].map(async (k) => !!await sessions.user(k, t(1))))))
        .toEqual([false, true, false, true])
      await port.unitOfWork((tx) => tx.sessions.endAll(ann))
      await port.unitOfWork((tx) => tx.principals.update(admin, { disabled: true }))
      expect(await port.read(async ({ sessions }) => [await sessions.user('a2', t(1)), await sessions.user('b1', t(1))])).toEqual([undefined, undefined])
    })

    it('creating a session drops the expired ones', async () => {
      const { port } = await fresh()
      const { ann } = await port.unitOfWork(seed)
      await port.unitOfWork((tx) => tx.sessions.create('old', ann, new Date(0), new Date(DAY)))
      await port.unitOfWork((tx) => tx.sessions.create('new', ann, new Date(2 * DAY), new Date(3 * DAY)))
      // Asked at a time it was live, the dropped one is gone.
      expect(await port.read(async ({ sessions }) => [!!await sessions.user('old', new Date(1)), !!await sessions.user('new', new Date(1))]))
        .toEqual([false, true])
    })
  })

  describe(`login limits (${mode})`, () => {
    it('loads what was saved, forgets removed keys, and keys unused for FORGET_MS unless still locked; saving prunes them', async () => {
      const { port } = await fresh()
      const now = 10 * FORGET_MS
      await port.unitOfWork((tx) => tx.loginLimits.save([
        ['login:a', { failures: 3, lockedUntil: 0, last: now }],
        ['login:b', { failures: 6, lockedUntil: now + 5000, last: now - 2 * FORGET_MS }],
        ['login:c', { failures: 1, lockedUntil: 0, last: now - 2 * FORGET_MS }],
        ['login:d', { failures: 2, lockedUntil: 0, last: now }],
      ], now - 3 * FORGET_MS))
      const load = (at: number) => port.read(async (tx) => (await tx.loginLimits.load(at)).sort(([a], [b]) => a.localeCompare(b)))
      expect(await load(now)).toEqual([['login:a', { failures: 3, lockedUntil: 0, last: now }],
        ['login:b', { failures: 6, lockedUntil: now + 5000, last: now - 2 * FORGET_MS }], ['login:d', { failures: 2, lockedUntil: 0, last: now }]])
      await port.unitOfWork((tx) => tx.loginLimits.save([['login:a', { failures: 4, lockedUntil: 0, last: now }], ['login:d', undefined]], now))
      // login:c was pruned by that save: asked at an earlier time it is not there either.
      expect((await load(now - 2 * FORGET_MS)).map(([k, e]) => [k, e.failures])).toEqual([['login:a', 4], ['login:b', 6]])
    })

    it('a key named twice in one save keeps what was said last', async () => {
      const { port } = await fresh()
      const now = 10 * FORGET_MS
      await port.unitOfWork((tx) => tx.loginLimits.save([
        ['login:a', { failures: 1, lockedUntil: 0, last: now }], ['login:a', { failures: 2, lockedUntil: 0, last: now }],
        ['login:b', { failures: 1, lockedUntil: 0, last: now }], ['login:b', undefined],
        ['login:c', undefined], ['login:c', { failures: 5, lockedUntil: now + 1, last: now }],
      ], now))
      expect((await port.read((tx) => tx.loginLimits.load(now))).sort(([a], [b]) => a.localeCompare(b)))
        .toEqual([['login:a', { failures: 2, lockedUntil: 0, last: now }], ['login:c', { failures: 5, lockedUntil: now + 1, last: now }]])
    })
  })
}
