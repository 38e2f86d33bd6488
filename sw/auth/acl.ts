/**
 * @module auth/acl
 * The one evaluator of resource permissions, as the original's (reference ngw-services §5.4):
 * rules on the ancestors count when they propagate, rules on the resource itself always;
 * `identity` filters by the evaluated resource's class; deny wins over allow whatever the
 * order; every permission needs `resource.read` on the same resource, and `resource.read`
 * needs it on the parent, so reading anything needs read on every ancestor.
 *
 * Permissions are bits of one number, so a rule is a mask and a chain of 1,000 rules is 1,000
 * ORs. What is derived (a node's rules, the inherited masks per class, a resource's effective
 * set) is cached per user; when the store's ACL change token moves, only the resources the
 * change log names are read again, and everything only when a principal or a membership changed.
 *
 * What a check needs is loaded first, through the data port's `AclRead` (`#load`: the token,
 * the log or the subjects, the nodes and their ancestors not in memory); the evaluation itself
 * is synchronous over what is in memory.
 */
import type { Principal } from './types.ts'
import type { AclRead, AclRow, AclRule, SystemIds } from './repository.ts'
import { specName } from '../core/identifiers.ts'

/** Scopes and their permissions, in the original's order (reference ngw-api §3.4). */
export const PERMISSIONS: Record<string, readonly string[]> = {
  resource: ['read', 'create', 'update', 'delete', 'manage_children', 'change_permissions'],
  data: ['read', 'write'],
  connection: ['read', 'write', 'connect'],
  service: ['connect', 'configure'],
  webmap: ['annotation_read', 'annotation_write', 'annotation_manage'],
}

const BIT = new Map<string, number>()
const SCOPE_MASK = new Map<string, number>()
for (const [sid, perms] of Object.entries(PERMISSIONS)) {
  let mask = 0
  for (const p of perms) { const b = 1 << BIT.size; BIT.set(`${sid}.${p}`, b); mask |= b }
  SCOPE_MASK.set(sid, mask)
}
const ALL = (1 << BIT.size) - 1
const bit = (scope: string, permission: string) => BIT.get(`${scope}.${permission}`)!
const READ = bit('resource', 'read')
/** A permission and the one it needs on the same resource (§5.4 step 4). */
const REQUIRES: Array<[number, number]> = [
  [bit('data', 'write'), bit('data', 'read')],
  [bit('connection', 'write'), bit('connection', 'read')],
  [bit('service', 'configure'), bit('service', 'connect')],
  [bit('webmap', 'annotation_manage'), bit('webmap', 'annotation_write')],
]

/** Whether `scope.permission` exists (an ACL rule naming another is refused on input). */
export const knownPermission = (scope: string, permission: string) =>
  scope === '' ? permission === '' : permission === '' ? SCOPE_MASK.has(scope) : BIT.has(`${scope}.${permission}`)

/** The mask of a rule's scope and permission: `""` means every one (§5.3). */
function maskOf(scope: string, permission: string): number {
  if (scope === '') return permission === '' ? ALL : 0
  if (permission === '') return SCOPE_MASK.get(scope) ?? 0
  return BIT.get(`${scope}.${permission}`) ?? 0
}

export type { AclRow, AclRule } from './repository.ts'

interface Rule { deny: boolean; principal: number; identity: string; mask: number; propagate: boolean }
interface Node { id: number; parent: number | null; cls: string; rules: Rule[] }

/**
 * Compiled rule lists by their stored text: a write elsewhere in the tree makes every node be
 * read again, but rules whose text did not change are not parsed again. Bounded: cleared whole
 * when it grows past `COMPILED_MAX` texts.
 */
const compiled = new Map<string, Rule[]>()
const COMPILED_MAX = 50_000

function compile(row: AclRow): Node {
  let rules = compiled.get(row.permissions)
  if (!rules) {
    rules = (JSON.parse(row.permissions) as AclRule[]).map((r) => ({ deny: r.action === 'deny',
      // A rule stored with the original's class name before input was made the spec's still matches.
      principal: r.principal.id, identity: specName(r.identity), mask: maskOf(r.scope, r.permission), propagate: r.propagate }))
    if (compiled.size >= COMPILED_MAX) compiled.clear()
    compiled.set(row.permissions, rules)
  }
  return { id: row.id, parent: row.parent_id, cls: row.cls, rules }
}

/** A rule list's masks for one subject and class: [allow, deny] of its propagating rules, then of all of them. */
type Masks = readonly [number, number, number, number]
const NONE: Masks = [0, 0, 0, 0]

/**
 * Masks by rule list (compiled once per text, so shared by every node with the same rules), then
 * by subject and class. They depend on nothing else, so they never go stale: a changed node gets
 * a new list, and evaluating a chain again after one node changed reads the others' masks here
 * instead of going through their rules (1,000 rules on 10 ancestors: 10 lookups and one list).
 */
const masksMemo = new WeakMap<Rule[], Map<string, Masks>>()

/** Lists shorter than this (most resources' few rules) are walked: cheaper than the memo's lookup. */
const MEMO_MIN = 16

function masksOf(s: Subject, rules: Rule[], cls: string): Masks {
  if (!rules.length) return NONE
  if (rules.length < MEMO_MIN) return walk(s, rules, cls)
  let bySubject = masksMemo.get(rules)
  if (!bySubject) masksMemo.set(rules, bySubject = new Map())
  const key = `${s.key}|${cls}`
  let m = bySubject.get(key)
  if (!m) bySubject.set(key, m = walk(s, rules, cls))
  return m
}

function walk(s: Subject, rules: Rule[], cls: string): Masks {
  const out = [0, 0, 0, 0]
  for (const r of rules) {
    if (!s.principals.has(r.principal) || (r.identity !== '' && r.identity !== cls)) continue
    const at = r.deny ? 1 : 0
    out[at + 2] |= r.mask
    if (r.propagate) out[at] |= r.mask
  }
  return out as unknown as Masks
}

/** Whether two rule lists say the same to subject `s` (the rules naming its principals, in order). */
function sameFor(s: Subject, a: Rule[], b: Rule[]): boolean {
  const mine = (rules: Rule[]) => rules.filter((r) => s.principals.has(r.principal))
  const x = mine(a), y = mine(b)
  return x.length === y.length && x.every((r, i) => r.deny === y[i]!.deny && r.mask === y[i]!.mask
    && r.propagate === y[i]!.propagate && r.identity === y[i]!.identity)
}

/** What one user's permissions are computed from: the principals their rules may name. */
interface Subject { key: string; principals: Set<number>; inherited: Map<string, [number, number]>; effective: Map<number, number> }

export class AclEvaluator {
  #version = -1
  #nodes = new Map<number, Node | null>()
  #subjects = new Map<string, Subject>()
  #byUser = new Map<number, Subject>()
  #system: SystemIds | undefined
  #groups = new Map<number, number[]>()

  /**
   * Brings the caches up to date and reads the nodes of `ids` and their ancestors that are not
   * in memory. The reads, in order: the token; when it moved, the change log or the subjects;
   * the missing nodes (one query); the ancestors not in memory (one query per chain).
   *
   * The token (`acl_state`, bumped by triggers on the tree's shape and rules, principals and
   * membership; migrations 8–9) is read in the caller's transaction, so other writes to the main
   * database keep every cache. When only resources changed since, as the change log says, only
   * their nodes are read again (in the same query); what was derived is dropped for the users the
   * changed rules name (for everyone after a move or a delete) and derived again from the nodes
   * in memory. Otherwise (a principal or membership changed, or the log no longer reaches back)
   * everything is dropped.
   */
  async #load(acl: AclRead, ids: readonly number[]): Promise<void> {
    const version = await acl.token()
    if (this.#version !== version) {
      const applied = this.#version >= 0 && version > this.#version
        && this.#apply(await acl.changes(this.#version), version)
      if (!applied) {
        this.#version = version
        this.#nodes.clear()
        this.#subjects.clear()
        this.#byUser.clear()
        this.#groups.clear()
        const { system, memberships } = await acl.subjects()
        this.#system = system
        for (const [user, group] of memberships) this.#groups.set(user, [...(this.#groups.get(user) ?? []), group])
      }
    }
    const missing = ids.filter((id) => !this.#nodes.has(id))
    if (missing.length) {
      const rows = await acl.rows(missing)
      for (const id of missing) this.#nodes.set(id, null)
      for (const row of rows) this.#nodes.set(row.id, compile(row))
    }
    // Every ancestor of a node must be in memory before the evaluation walks up: the first one
    // missing on each path is read with all of its own (siblings share theirs: one query).
    const whole = new Set<number>()
    for (const id of ids) {
      for (let n = this.#nodes.get(id); n && n.parent !== null && !whole.has(n.id);) {
        whole.add(n.id)
        const up = this.#nodes.get(n.parent)
        if (up === undefined) {
          for (const row of await acl.chain(n.parent)) if (!this.#nodes.has(row.id)) this.#nodes.set(row.id, compile(row))
          if (!this.#nodes.has(n.parent)) this.#nodes.set(n.parent, null)
        }
        n = this.#nodes.get(n.parent)
      }
    }
  }

  /** Applies the logged changes since our version; `false` when they are not all resources' or not all there. */
  #apply(changes: Awaited<ReturnType<AclRead['changes']>>, version: number): boolean {
    if (changes.length !== version - this.#version || changes.some((c) => c.resourceId === null)) return false
    let moved = false
    const ruled: Array<[Node, Node]> = []
    for (const { resourceId, row } of changes) {
      const before = this.#nodes.get(resourceId!)
      const now = row === null ? null : compile(row)
      this.#nodes.set(resourceId!, now)
      // Nothing was derived from a node never read (or read as missing): a new resource touches nothing.
      if (!before) continue
      if (now && now.parent === before.parent && now.cls === before.cls) ruled.push([before, now])
      else moved = true
    }
    for (const s of this.#subjects.values()) {
      // A move or a delete changes what inherits from what; changed rules matter to those they name.
      if (moved || ruled.some(([a, b]) => !sameFor(s, a.rules, b.rules))) { s.inherited.clear(); s.effective.clear() }
    }
    this.#version = version
    return true
  }

  #subject(user: Principal): Subject {
    // By user id: the principals come from membership, and a membership change drops this map.
    let s = this.#byUser.get(user.id)
    if (!s) this.#byUser.set(user.id, s = this.#subjectOf(user))
    return s
  }

  #subjectOf(user: Principal): Subject {
    const sys = this.#system!
    const principals = new Set([user.id, sys.everyone, ...(this.#groups.get(user.id) ?? [])])
    if (user.id !== sys.guest) principals.add(sys.authenticated)
    const key = [...principals].sort((a, b) => a - b).join(',')
    let s = this.#subjects.get(key)
    if (!s) this.#subjects.set(key, s = { key, principals, inherited: new Map(), effective: new Map() })
    return s
  }

  /** A node `#load` made sure of (`null`: no such resource). */
  #node(id: number): Node | null {
    return this.#nodes.get(id) ?? null
  }

  /** The [allow, deny] masks that `nodeId` and its ancestors pass down to a child of class `cls`. */
  #inherited(s: Subject, nodeId: number, cls: string): [number, number] {
    const key = `${nodeId}:${cls}`
    let out = s.inherited.get(key)
    if (out) return out
    const node = this.#node(nodeId)
    out = node?.parent == null ? [0, 0] : [...this.#inherited(s, node.parent, cls)]
    if (node) {
      const m = masksOf(s, node.rules, cls)
      out[0] |= m[0]
      out[1] |= m[1]
    }
    s.inherited.set(key, out)
    return out
  }

  #effective(s: Subject, node: Node): number {
    let eff = s.effective.get(node.id)
    if (eff !== undefined) return eff
    const [allow, deny] = node.parent == null ? [0, 0] : this.#inherited(s, node.parent, node.cls)
    const own = masksOf(s, node.rules, node.cls)
    eff = (allow | own[2]) & ~(deny | own[3])
    for (const [p, needs] of REQUIRES) if (!(eff & needs)) eff &= ~p
    // resource.read needs read on the parent, and every permission needs resource.read.
    const parent = node.parent == null ? null : this.#node(node.parent)
    if (!(eff & READ) || (parent && !(this.#effective(s, parent) & READ))) eff = 0
    s.effective.set(node.id, eff)
    return eff
  }

  #has(user: Principal, id: number, scope: string, permission: string): boolean | undefined {
    const node = this.#node(id)
    if (!node) return undefined
    return !!(this.#effective(this.#subject(user), node) & bit(scope, permission))
  }

  /** Whether `user` has `scope.permission` on resource `id`; `undefined` when there is no such resource. */
  async check(acl: AclRead, user: Principal, id: number, scope: string, permission: string): Promise<boolean | undefined> {
    await this.#load(acl, [id])
    return this.#has(user, id, scope, permission)
  }

  /** `check` for each of `ids`: the first refused id, or `undefined` when every one passes (or does not exist). */
  async refused(acl: AclRead, user: Principal, ids: readonly number[], scope: string, permission: string): Promise<number | undefined> {
    await this.#load(acl, ids)
    return ids.find((id) => this.#has(user, id, scope, permission) === false)
  }

  /**
   * Whether `user` could create a resource of class `cls` under `parentId`: `resource.create`
   * on the new resource, evaluated through the parent's propagating rules (§5.4 "Create").
   */
  async canCreate(acl: AclRead, user: Principal, parentId: number, cls: string): Promise<boolean> {
    await this.#load(acl, [parentId])
    const parent = this.#node(parentId)
    if (!parent) return false
    const s = this.#subject(user)
    const [allow, deny] = this.#inherited(s, parentId, cls)
    const eff = allow & ~deny
    return !!(eff & READ) && !!(eff & bit('resource', 'create')) && !!(this.#effective(s, parent) & READ)
  }

  /** Whether `user` is named by any rule granting `resource.create` (else a create is refused unread). */
  async mayCreateSomewhere(acl: AclRead, user: Principal): Promise<boolean> {
    await this.#load(acl, [])
    const s = this.#subject(user)
    const create = bit('resource', 'create')
    return (await acl.allowRules()).some((r) => s.principals.has(r.principal.id) && !!(maskOf(r.scope, r.permission) & create))
  }

  /**
   * The rows of `rows` that `user` may read, for listings: the parent chain is evaluated once.
   * Only ids are needed: nodes not in memory yet are read in one query (a listing reads its
   * rows' rules only the first time, not on every request).
   */
  async readable<T extends { id: number }>(acl: AclRead, user: Principal, rows: T[]): Promise<T[]> {
    await this.#load(acl, rows.map((row) => row.id))
    const s = this.#subject(user)
    return rows.filter((row) => {
      const node = this.#nodes.get(row.id)
      return !!node && !!(this.#effective(s, node) & READ)
    })
  }

  /** `{scope: {permission: bool}}` for the scopes `scopes` (plus `resource`) of resource `id` (§5.7). */
  async effective(acl: AclRead, user: Principal, id: number, scopes: readonly string[]): Promise<Record<string, Record<string, boolean>>> {
    await this.#load(acl, [id])
    const node = this.#node(id)
    const eff = node ? this.#effective(this.#subject(user), node) : 0
    return Object.fromEntries([...new Set(['resource', ...scopes])].filter((sid) => PERMISSIONS[sid]).map((sid) =>
      [sid, Object.fromEntries(PERMISSIONS[sid]!.map((p) => [p, !!(eff & bit(sid, p))]))]))
  }
}
