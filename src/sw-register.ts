/**
 * Registers the service worker that carries the backend, and resolves once it controls the
 * page, so that the first `/api/` request is answered by it. From then on a new worker
 * taking over reloads the page, so the UI never talks to an API older or newer than itself
 * (unsaved form input survives the reload: forms keep drafts).
 */

/** How often a long-open app looks for a new version. */
const UPDATE_CHECK_MS = 60 * 60 * 1000

export async function registerBackend(): Promise<void> {
  if (!('serviceWorker' in navigator)) throw new Error('This browser has no service workers; Outpost cannot run here.')
  const url = import.meta.env.DEV ? '/dev-sw.js?dev-sw' : '/service-worker.js'
  const registration = await navigator.serviceWorker.register(url, { type: 'module', scope: '/' })
  if (!navigator.serviceWorker.controller) {
    // First visit: the new worker claims this page when it activates.
    await navigator.serviceWorker.ready
    if (!navigator.serviceWorker.controller) {
      await new Promise<void>((resolve) => {
        navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true })
        setTimeout(resolve, 5000)
      })
    }
    if (!navigator.serviceWorker.controller) {
      window.location.reload()
      return
    }
  }
  navigator.serviceWorker.addEventListener('controllerchange', () => window.location.reload(), { once: true })
  const check = () => { registration.update().catch(() => { /* offline: try again later */ }) }
  window.addEventListener('online', check)
  setInterval(check, UPDATE_CHECK_MS)
}
