/**
 * One form action at a time: `busy` while it runs, and what it threw in `error` (shown by
 * the form, never swallowed). Every form of the app submits through it.
 */
import { ref, type Ref } from 'vue'

export interface UseSubmitReturn<A extends unknown[]> {
  busy: Ref<boolean>
  error: Ref<unknown>
  /** Runs the action unless one is running; resolves when it is done, whatever the outcome. */
  run: (...args: A) => Promise<void>
}

export function useSubmit<A extends unknown[]>(action: (...args: A) => Promise<void>): UseSubmitReturn<A> {
  const busy = ref(false)
  const error = ref<unknown>(null)
  async function run(...args: A): Promise<void> {
    if (busy.value) return
    busy.value = true
    error.value = null
    try {
      await action(...args)
    } catch (err) {
      error.value = err
    } finally {
      busy.value = false
    }
  }
  return { busy, error, run }
}
