/**
 * @module composables/useResourceTree
 * The resource tree as the person browses it: children are fetched when a node is first
 * opened and refetched after a change under it. Module-level state, so the tree, the
 * details panel and the dialogs share one selection.
 */
import { reactive, ref, shallowRef } from 'vue'
import { listChildren, getResource, ROOT_ID, type ResourceInfo } from '../api/resource.ts'
import { useNotices } from './useNotices.ts'
import { ServerError } from '../api/request.ts'

const root = shallowRef<ResourceInfo | null>(null)
/** Loaded children per parent id; absent = not loaded yet. */
const childrenOf = reactive(new Map<number, ResourceInfo[]>())
const expanded = reactive(new Set<number>())
const loading = reactive(new Set<number>())
const selectedId = ref<number>(ROOT_ID)
/**
 * Bumped after a change the tree was told of (a resource created, imported, renamed, moved or
 * deleted): the lists of layers elsewhere (the map's, the collect panel's) read them again.
 */
const changes = ref(0)
/** The person may not read the main resource group (a guest, since issue 21): nothing to show, no error. */
const rootDenied = ref(false)

const { reportError } = useNotices()

/**
 * Groups can always be opened: a group that was empty may have gained children since. Any other
 * resource opens when it has children, as listed or as loaded (a layer's first style).
 */
export const canExpand = (node: ResourceInfo) => node.cls === 'resource_group' || node.children || !!childrenOf.get(node.id)?.length

async function loadChildren(id: number): Promise<void> {
  loading.add(id)
  try {
    const items = await listChildren(id)
    childrenOf.set(id, items.map((i) => i.resource))
  } catch (err) {
    reportError(err)
  } finally {
    loading.delete(id)
  }
}

async function loadRoot(): Promise<void> {
  try {
    root.value = (await getResource(ROOT_ID)).resource
    rootDenied.value = false
  } catch (err) {
    // The previous person's tree must not stay on screen after a logout.
    root.value = null
    if (err instanceof ServerError && err.status === 403) rootDenied.value = true
    else reportError(err)
    return
  }
  expanded.add(ROOT_ID)
  await loadChildren(ROOT_ID)
}

async function toggle(id: number): Promise<void> {
  if (expanded.has(id)) {
    expanded.delete(id)
    return
  }
  expanded.add(id)
  if (!childrenOf.has(id)) await loadChildren(id)
}

async function expand(id: number): Promise<void> {
  expanded.add(id)
  await loadChildren(id)
  changes.value++
}

/** Refetches the children of the given parents that are loaded (after a change under them). */
async function refresh(...ids: number[]): Promise<void> {
  await Promise.all([...new Set(ids)].map((id) => (id === ROOT_ID ? loadRoot() : childrenOf.has(id) ? loadChildren(id) : undefined)))
  changes.value++
}

/** Forgets everything, e.g. after logging in or out (what a person may see can change). */
async function reload(): Promise<void> {
  childrenOf.clear()
  expanded.clear()
  // The next person starts at the top, not on something the previous one had open.
  selectedId.value = ROOT_ID
  await loadRoot()
}

export function useResourceTree() {
  return { root, changes, rootDenied, childrenOf, expanded, loading, selectedId, loadRoot, toggle, expand, refresh, reload,
    select: (id: number) => { selectedId.value = id } }
}
