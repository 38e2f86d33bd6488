/**
 * @module resource/acl-input
 * The `resource.permissions` member on input (reference ngw-services §5.3): a list of rules with
 * all six keys; a PUT replaces the whole list. Where the original answers 500 (an unknown
 * principal, two rules differing only in `action`) this one answers 422 naming the culprit, and
 * an unknown scope or permission, which the original stores and never matches, is refused too:
 * a rule that can never match protects nothing while looking as if it did.
 */
import { validationError } from '../core/error.ts'
import { expectKeys, expectKind, expectObject, expectRef } from '../core/validate.ts'
import { knownPermission, type AclRule } from '../auth/acl.ts'
import type { PrincipalRead } from '../auth/repository.ts'
import type { ClassLookup } from './class.ts'

const KEYS = ['action', 'principal', 'identity', 'scope', 'permission', 'propagate'] as const

/** The permissions to store (JSON text) for value `v` of `$.resource.permissions`. */
export async function permissionsInput(principals: PrincipalRead, classes: ClassLookup, v: unknown): Promise<string> {
  const rules = expectKind<unknown[]>('array', v, '$.resource.permissions')
  const seen = new Set<string>()
  const out: AclRule[] = []
  for (const [i, raw] of rules.entries()) {
    const at = `$.resource.permissions[${i}]`
    const r = expectObject(raw, at)
    expectKeys(r, KEYS, at)
    for (const k of KEYS) if (r[k] === undefined) throw validationError(`Object missing required field \`${k}\` - at \`${at}\``)
    const action = expectKind<string>('str', r.action, `${at}.action`)
    if (action !== 'allow' && action !== 'deny') throw validationError(`Input should be 'allow' or 'deny' - at \`${at}.action\``)
    const pid = expectRef(r.principal, `${at}.principal`)
    if (!await principals.row(pid)) {
      throw validationError(`Principal with id = ${pid} was not found - at \`${at}.principal.id\``, { principal: { id: pid } })
    }
    const sent = expectKind<string>('str', r.identity, `${at}.identity`)
    // Stored as the class's own name: the evaluator matches it against stored classes, and the
    // original's spelling (`mapserver_style`) must rule the same resources as the spec's.
    const identity = sent === '' ? '' : classes.find(sent)?.identity
    if (identity === undefined) throw validationError(`Unknown resource class '${sent}' - at \`${at}.identity\``)
    const scope = expectKind<string>('str', r.scope, `${at}.scope`)
    const permission = expectKind<string>('str', r.permission, `${at}.permission`)
    if (!knownPermission(scope, permission)) {
      throw validationError(`Permission '${scope}${permission ? '.' + permission : ''}' not found - at \`${at}\``, { scope, permission })
    }
    const propagate = expectKind<boolean>('bool', r.propagate, `${at}.propagate`)
    const key = JSON.stringify([pid, identity, scope, permission, propagate])
    if (seen.has(key)) throw validationError(`Two rules for the same principal, identity, scope, permission and propagation - at \`${at}\``)
    seen.add(key)
    out.push({ action, principal: { id: pid }, identity, scope, permission, propagate })
  }
  return JSON.stringify(out)
}
