/**
 * @module composables/useOnline
 * Whether the browser believes it is online, from `navigator.onLine` and its events.
 * The app works offline either way; this only tells the person.
 */
import { readonly, ref } from 'vue'

const online = ref(typeof navigator === 'undefined' ? true : navigator.onLine)
let listening = false

export function useOnline() {
  if (!listening && typeof window !== 'undefined') {
    listening = true
    window.addEventListener('online', () => { online.value = true })
    window.addEventListener('offline', () => { online.value = false })
  }
  return readonly(online)
}
