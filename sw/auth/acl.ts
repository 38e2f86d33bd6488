// port: legacy-sql (issue 22)
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
 */
import type { SqlDb } from '../store/database.ts'
import type { Principal } from './types.ts'

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

/** An ACL rule as stored in `resource.permissions` (reference §5.3). */
export interface AclRule {
  action: 'allow' | 'deny'
  principal: { id: number }
  identity: string
  scope: string
  permission: string
  propagate: boolean
}

interface Rule { deny: boolean; principal: number; identity: string; mask: number; propagate: boolean }
interface Node { id: number; parent: number | null; cls: string; rules: Rule[] }
/** The columns of a resource the evaluator compiles into a node (it reads them itself, by id). */
export interface AclRow { id: number; parent_id: number | null; cls: string; permissions: string }

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
      principal: r.principal.id, identity: r.identity, mask: maskOf(r.scope, r.permission), propagate: r.propagate }))
    if (compiled.size >= COMPILED_MAX) compiled.clear()
    compiled.set(row.permissions, rules)
  }
  return { id: row.id, parent: row.parent_id, cls: row.cls, rules }
}

type Statement = ReturnType<SqlDb['prepare']>
/**
 * The two queries every check may run, prepared once per connection: preparing them was most of
 * a check's time (~10-40 µs each, a prepared step ~3 µs). oo1 finalizes them when the
 * connection closes, and a new connection is a new key.
 */
const statements = new WeakMap<SqlDb, Map<string, Statement>>()

/** The rows of `sql` (arrays), through its statement on `db`; reset (bindings cleared) before returning. */
function rowsOf(db: SqlDb, sql: string, bind?: number[]): unknown[][] {
  let byDb = statements.get(db)
  if (!byDb) statements.set(db, byDb = new Map())
  let st = byDb.get(sql)
  if (!st) byDb.set(sql, st = db.prepare(sql))
  try {
    if (bind) st.bind(bind)
    const out: unknown[][] = []
    while (st.step()) out.push(st.get([]))
    return out
  } finally {
    st.reset(true)
  }
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

/** The system principals' ids, looked up by keyname (never hard-coded, §5.1). */
interface SystemIds { everyone: number; authenticated: number; guest: number }

export class AclEvaluator {
  #version = -1
  #nodes = new Map<number, Node | null>()
  #subjects = new Map<string, Subject>()
  #byUser = new Map<number, Subject>()
  #system: SystemIds | undefined
  #groups = new Map<number, number[]>()

  /**
   * Brings the caches up to the store's ACL change token `acl_state` (bumped by triggers on the
   * tree's shape and rules, principals and membership; migrations 8–9), read in the caller's
   * transaction, so other writes to the main database keep every cache. When only resources
   * changed since, as the change log `acl_change` says, only their nodes are read again (in the
   * same query); what was derived is dropped for the users the changed rules name (for everyone
   * after a move or a delete) and derived again from the nodes in memory. Otherwise (a principal
   * or membership changed, or the log no longer reaches back) everything is dropped.
   */
  #fresh(db: SqlDb): void {
    const version = Number(rowsOf(db, 'SELECT version FROM acl_state')[0]![0])
    if (this.#version === version) return
    if (this.#version >= 0 && version > this.#version && this.#apply(db, version)) return
    this.#version = version
    this.#nodes.clear()
    this.#subjects.clear()
    this.#byUser.clear()
    this.#groups.clear()
    const ids = Object.fromEntries((db.selectObjects(`SELECT keyname, id FROM principal
      WHERE keyname IN ('everyone', 'authenticated', 'guest') AND system = 1`) as Array<{ keyname: string; id: number }>)
      .map((r) => [r.keyname, r.id]))
    this.#system = ids as unknown as SystemIds
    for (const r of db.selectObjects(`SELECT user_id, group_id FROM principal_member`) as Array<{ user_id: number; group_id: number }>) {
      this.#groups.set(r.user_id, [...(this.#groups.get(r.user_id) ?? []), r.group_id])
    }
  }

  /** Applies the logged changes since our version; `false` when they are not all resources' or not all there. */
  #apply(db: SqlDb, version: number): boolean {
    // Arrays, not objects: this runs on the request after every change of rules (~40% cheaper).
    const changes = rowsOf(db, `SELECT c.resource_id, r.id, r.parent_id, r.cls, r.permissions
      FROM acl_change c LEFT JOIN resource r ON r.id = c.resource_id WHERE c.version > ? ORDER BY c.version`,
    [this.#version]) as Array<[number | null, number | null, number | null, string, string]>
    if (changes.length !== version - this.#version || changes.some((c) => c[0] === null)) return false
    let moved = false
    const ruled: Array<[Node, Node]> = []
    for (const [changed, id, parent_id, cls, permissions] of changes) {
      const before = this.#nodes.get(changed!)
      const now = id === null ? null : compile({ id, parent_id, cls, permissions })
      this.#nodes.set(changed!, now)
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

  #node(db: SqlDb, id: number): Node | null {
    let n = this.#nodes.get(id)
    if (n === undefined) {
      const row = db.selectObject(`SELECT id, parent_id, cls, permissions FROM resource WHERE id = ?`, [id]) as AclRow | undefined
      this.#nodes.set(id, n = row ? compile(row) : null)
    }
    return n
  }

  /** The [allow, deny] masks that `nodeId` and its ancestors pass down to a child of class `cls`. */
  #inherited(db: SqlDb, s: Subject, nodeId: number, cls: string): [number, number] {
    const key = `${nodeId}:${cls}`
    let out = s.inherited.get(key)
    if (out) return out
    const node = this.#node(db, nodeId)
    out = node?.parent == null ? [0, 0] : [...this.#inherited(db, s, node.parent, cls)]
    if (node) {
      const m = masksOf(s, node.rules, cls)
      out[0] |= m[0]
      out[1] |= m[1]
    }
    s.inherited.set(key, out)
    return out
  }

  #effective(db: SqlDb, s: Subject, node: Node): number {
    let eff = s.effective.get(node.id)
    if (eff !== undefined) return eff
    const [allow, deny] = node.parent == null ? [0, 0] : this.#inherited(db, s, node.parent, node.cls)
    const own = masksOf(s, node.rules, node.cls)
    eff = (allow | own[2]) & ~(deny | own[3])
    for (const [p, needs] of REQUIRES) if (!(eff & needs)) eff &= ~p
    // resource.read needs read on the parent, and every permission needs resource.read.
    const parent = node.parent == null ? null : this.#node(db, node.parent)
    if (!(eff & READ) || (parent && !(this.#effective(db, s, parent) & READ))) eff = 0
    s.effective.set(node.id, eff)
    return eff
  }

  /** Whether `user` has `scope.permission` on resource `id`; `undefined` when there is no such resource. */
  has(db: SqlDb, user: Principal, id: number, scope: string, permission: string): boolean | undefined {
    this.#fresh(db)
    const node = this.#node(db, id)
    if (!node) return undefined
    return !!(this.#effective(db, this.#subject(user), node) & bit(scope, permission))
  }

  /**
   * Whether `user` could create a resource of class `cls` under `parentId`: `resource.create`
   * on the new resource, evaluated through the parent's propagating rules (§5.4 "Create").
   */
  canCreate(db: SqlDb, user: Principal, parentId: number, cls: string): boolean {
    this.#fresh(db)
    const parent = this.#node(db, parentId)
    if (!parent) return false
    const s = this.#subject(user)
    const [allow, deny] = this.#inherited(db, s, parentId, cls)
    const eff = allow & ~deny
    return !!(eff & READ) && !!(eff & bit('resource', 'create')) && !!(this.#effective(db, s, parent) & READ)
  }

  /** Whether `user` is named by any rule granting `resource.create` (else a create is refused unread). */
  mayCreateSomewhere(db: SqlDb, user: Principal): boolean {
    this.#fresh(db)
    const s = this.#subject(user)
    const create = bit('resource', 'create')
    return (db.selectValues(`SELECT DISTINCT value FROM resource, json_each(resource.permissions)
        WHERE json_extract(value, '$.action') = 'allow'`) as string[])
      .map((t) => JSON.parse(t) as AclRule).some((r) => s.principals.has(r.principal.id) && !!(maskOf(r.scope, r.permission) & create))
  }

  /**
   * The rows of `rows` that `user` may read, for listings: the parent chain is evaluated once.
   * Only ids are needed: nodes not in memory yet are read in one query (a listing reads its
   * rows' rules only the first time, not on every request).
   */
  readable<T extends { id: number }>(db: SqlDb, user: Principal, rows: T[]): T[] {
    this.#fresh(db)
    const missing = rows.filter((row) => !this.#nodes.has(row.id)).map((row) => row.id)
    if (missing.length) {
      for (const [id, parent_id, cls, permissions] of db.selectArrays(`SELECT id, parent_id, cls, permissions FROM resource
          WHERE id IN (SELECT value FROM json_each(?))`, [JSON.stringify(missing)]) as Array<[number, number | null, string, string]>) {
        this.#nodes.set(id, compile({ id, parent_id, cls, permissions }))
      }
    }
    const s = this.#subject(user)
    return rows.filter((row) => {
      const node = this.#nodes.get(row.id)
      return !!node && !!(this.#effective(db, s, node) & READ)
    })
  }

  /** `{scope: {permission: bool}}` for the scopes `scopes` (plus `resource`) of resource `id` (§5.7). */
  effective(db: SqlDb, user: Principal, id: number, scopes: readonly string[]): Record<string, Record<string, boolean>> {
    this.#fresh(db)
    const node = this.#node(db, id)
    const eff = node ? this.#effective(db, this.#subject(user), node) : 0
    return Object.fromEntries([...new Set(['resource', ...scopes])].filter((sid) => PERMISSIONS[sid]).map((sid) =>
      [sid, Object.fromEntries(PERMISSIONS[sid]!.map((p) => [p, !!(eff & bit(sid, p))]))]))
  }
}
