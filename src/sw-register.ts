/**
 * Registers the service worker that carries the backend, and resolves once it controls the
 * page, so that the first `/api/` request is answered by it. A new worker taking over
 * reloads the page, so the UI never talks to an API older or newer than itself.
 */
export async function registerBackend(): Promise<void> {
  if (!('serviceWorker' in navigator)) throw new Error('This browser has no service workers; Outpost cannot run here.')
  const url = import.meta.env.DEV ? '/dev-sw.js?dev-sw' : '/service-worker.js'
  const hadController = !!navigator.serviceWorker.controller
  await navigator.serviceWorker.register(url, { type: 'module', scope: '/' })
  if (hadController) {
    navigator.serviceWorker.addEventListener('controllerchange', () => window.location.reload(), { once: true })
    return
  }
  await navigator.serviceWorker.ready
  if (!navigator.serviceWorker.controller) {
    await new Promise<void>((resolve) => {
      navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true })
      setTimeout(resolve, 5000)
    })
  }
  if (!navigator.serviceWorker.controller) window.location.reload()
}
