/**
 * @module composables/useBlueprint
 * The resource classes the server knows, from `resource.blueprint`, fetched once per page
 * (module-level state): the "New" menu lists them and the tree names them by their labels.
 */
import { shallowRef } from 'vue'
import { getBlueprint, type BlueprintClass } from '../api/resource.ts'

/** Classes in the blueprint's `order` (those without one last), then by label: the order of the "New" menu. */
export function sortClasses(classes: readonly BlueprintClass[]): BlueprintClass[] {
  const order = (c: BlueprintClass) => c.order ?? Number.MAX_SAFE_INTEGER
  return [...classes].sort((a, b) => order(a) - order(b) || a.label.localeCompare(b.label))
}

const classes = shallowRef<BlueprintClass[]>([])
let pending: Promise<BlueprintClass[]> | undefined

/** Fetches the blueprint on first use; a failure is thrown to the caller and tried again next time. */
function load(): Promise<BlueprintClass[]> {
  pending ??= getBlueprint().then((b) => (classes.value = sortClasses(Object.values(b.resources))))
  pending.catch(() => { pending = undefined })
  return pending
}

export function useBlueprint() {
  return { classes, load }
}
