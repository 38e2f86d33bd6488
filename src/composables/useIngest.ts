/**
 * @module composables/useIngest
 * The "import a file" dialog's shared state: open or not, the group it creates in, and a file
 * dropped on the app (module-level, so the sidebar's button and the page-wide drop open the
 * same dialog).
 */
import { ref, shallowRef } from 'vue'

const open = ref(false)
const parent = ref<number | null>(null)
const file = shallowRef<File | null>(null)

export function useIngest() {
  return {
    open,
    parent,
    file,
    /** Opens the dialog, creating in `parentId` (or where the person is), with `dropped` already chosen. */
    start(parentId: number | null, dropped: File | null = null) {
      parent.value = parentId
      file.value = dropped
      open.value = true
    },
    close() {
      open.value = false
      file.value = null
    },
  }
}
