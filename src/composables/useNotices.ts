/**
 * @module composables/useNotices
 * Errors and short messages shown to the person, app-wide (module-level state).
 */
import { ref } from 'vue'
import { describeError } from '../api/request.ts'

export interface Notice {
  id: number
  kind: 'error' | 'info'
  title: string
  message: string
}

const notices = ref<Notice[]>([])
let nextId = 1

function push(kind: Notice['kind'], title: string, message: string): void {
  notices.value = [...notices.value, { id: nextId++, kind, title, message }].slice(-4)
}

export function useNotices() {
  return {
    notices,
    /** Shows an error (API or network) with its title and message. */
    reportError: (err: unknown) => {
      console.error(err)
      const { title, message } = describeError(err)
      push('error', title, message)
    },
    inform: (title: string, message = '') => push('info', title, message),
    dismiss: (id: number) => { notices.value = notices.value.filter((n) => n.id !== id) },
  }
}
