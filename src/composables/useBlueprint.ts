/**
 * @module composables/useBlueprint
 * The resource classes the server knows, from `resource.blueprint`, fetched once per page
 * (module-level state): the "New" menu lists those the selected resource may hold, and the tree
 * names them by their labels.
 */
import { shallowRef } from 'vue'
import { getBlueprint, type BlueprintClass, type BlueprintScope } from '../api/resource.ts'

/** Classes in the blueprint's `order` (those without one last), then by label: the order of the "New" menu. */
export function sortClasses(classes: readonly BlueprintClass[]): BlueprintClass[] {
  const order = (c: BlueprintClass) => c.order ?? Number.MAX_SAFE_INTEGER
  return [...classes].sort((a, b) => order(a) - order(b) || a.label.localeCompare(b.label))
}

/**
 * The classes a resource of class `parentCls` may hold, as the blueprint says. A server that does
 * not say (the original) gets each class offered in groups only, where most classes live.
 */
export function classesUnder(classes: readonly BlueprintClass[], parentCls: string): BlueprintClass[] {
  return classes.filter((c) => c.outpost_parent_classes?.includes(parentCls) ?? parentCls === 'resource_group')
}

const classes = shallowRef<BlueprintClass[]>([])
/** The permission scopes by identity (the Permissions tab offers each class's own). */
const scopes = shallowRef<Record<string, BlueprintScope>>({})
let pending: Promise<BlueprintClass[]> | undefined

/** Fetches the blueprint on first use; a failure is thrown to the caller and tried again next time. */
function load(): Promise<BlueprintClass[]> {
  pending ??= getBlueprint().then((b) => {
    scopes.value = b.scopes ?? {}
    return (classes.value = sortClasses(Object.values(b.resources)))
  })
  pending.catch(() => { pending = undefined })
  return pending
}

export function useBlueprint() {
  return { classes, scopes, load }
}
