/**
 * @module webmap/opened
 * Which web map the app shows as its main view: the one its address names (`?webmap=<id>`),
 * or none (then the map shows the device's layer list). Opening and closing change the address,
 * so a reload, the back button and a copied address keep it.
 */
import { shallowRef } from 'vue'
import { parseWebmapLocation, webmapUrl, type WebmapLocation } from './url.ts'

const opened = shallowRef<WebmapLocation | undefined>(typeof location === 'undefined' ? undefined : parseWebmapLocation(location.search))

if (typeof window !== 'undefined') window.addEventListener('popstate', () => { opened.value = parseWebmapLocation(location.search) })

export function useOpenedWebmap() {
  return {
    opened,
    /** Shows web map `id` (at its initial extent). */
    open(id: number): void {
      history.pushState(null, '', webmapUrl(id))
      opened.value = { id, panel: false }
    },
    /** Back to the device's layers. */
    close(): void {
      history.pushState(null, '', './')
      opened.value = undefined
    },
  }
}
