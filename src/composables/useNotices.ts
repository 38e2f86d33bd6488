/**
 * @module composables/useNotices
 * Errors and short messages shown to the person, app-wide (module-level state). A notice
 * closes by itself after a few seconds (an error after longer, so there is time to read it),
 * and not while the pointer or the focus is on it; it can always be closed at once.
 */
import { ref } from 'vue'
import { describeError } from '../api/request.ts'

export interface Notice {
  id: number
  kind: 'error' | 'info'
  title: string
  message: string
}

/** How long a notice stays, by kind, in ms. */
export const NOTICE_MS: Record<Notice['kind'], number> = { info: 4000, error: 9000 }
/** At most this many at once: the oldest goes first. */
const MAX_NOTICES = 4

const notices = ref<Notice[]>([])
const timers = new Map<number, ReturnType<typeof setTimeout>>()
let nextId = 1

function dismiss(id: number): void {
  clearTimeout(timers.get(id))
  timers.delete(id)
  notices.value = notices.value.filter((n) => n.id !== id)
}

function schedule(n: Notice): void {
  clearTimeout(timers.get(n.id))
  timers.set(n.id, setTimeout(() => dismiss(n.id), NOTICE_MS[n.kind]))
}

function push(kind: Notice['kind'], title: string, message: string): void {
  const n: Notice = { id: nextId++, kind, title, message }
  const all = [...notices.value, n]
  for (const old of all.slice(0, -MAX_NOTICES)) dismiss(old.id)
  notices.value = all.slice(-MAX_NOTICES)
  schedule(n)
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
    dismiss,
    /** Keeps notice `id` while the person reads it (pointer or focus on it). */
    hold: (id: number) => { clearTimeout(timers.get(id)); timers.delete(id) },
    /** Lets notice `id` close by itself again, after its full time. */
    release: (id: number) => { const n = notices.value.find((x) => x.id === id); if (n) schedule(n) },
  }
}
