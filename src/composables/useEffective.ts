/**
 * @module composables/useEffective
 * The person's effective permissions on resources (`GET /api/resource/{id}/permission`,
 * src/api/permissions.ts), for lists that offer an action per resource (Export on the map,
 * Sync on an offline layer): buttons for what the person may not do are left out, not
 * failing (issue 21). Each resource is asked once, and asked again when another person logs
 * in or the tree changes (rules may have changed with it).
 */
import { effectScope, shallowRef, watch } from 'vue'
import { allows, getEffective, type Effective } from '../api/permissions.ts'
import { useAuth } from './useAuth.ts'
import { useResourceTree } from './useResourceTree.ts'

/** Known permissions by resource id; `null`: the person may not even ask (a guest, a resource they cannot read). */
const known = shallowRef(new Map<number, Effective | null>())
/** Bumped when what is known is dropped: answers of an older ask are not kept. */
let generation = 0
let watching = false

function forget(): void {
  generation++
  known.value = new Map()
}

/** Asks for the resources of `ids` not known yet. */
async function ask(ids: Iterable<number>): Promise<void> {
  const gen = generation
  const missing = [...new Set(ids)].filter((id) => !known.value.has(id))
  if (!missing.length) return
  const got = await Promise.all(missing.map((id) => getEffective(id).catch(() => null)))
  if (gen !== generation) return
  const next = new Map(known.value)
  missing.forEach((id, i) => next.set(id, got[i]!))
  known.value = next
}

/** Whether the person may `scope.permission` on `id`; `false` until known. */
const may = (id: number, scope: string, permission: string): boolean => allows(known.value.get(id) ?? null, scope, permission)

export function useEffective() {
  if (!watching) {
    watching = true
    // App-wide, in a scope of its own: watchers made in the first caller's setup would stop when it unmounts.
    effectScope(true).run(() => {
      watch(useAuth().user, forget)
      watch(useResourceTree().changes, forget)
    })
  }
  return { known, ask, may }
}
