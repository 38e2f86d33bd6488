/**
 * Registers the service worker that carries the backend, and resolves once it controls the
 * page, so that the first `/api/` request is answered by it. From then on a new worker
 * taking over reloads the page, so the UI never talks to an API older or newer than itself
 * (unsaved form input survives the reload: forms keep drafts).
 *
 * The way there is reported step by step (the splash shows it): registering, then the new
 * worker's states on a first visit (installing → installed → activating; it claims the page
 * while activating), then controlled. While it installs, the worker posts how many of its files
 * it has saved for offline use (`outpost-install-progress`, sw/host/service-worker.ts).
 */

/** How often a long-open app looks for a new version. */
const UPDATE_CHECK_MS = 60 * 60 * 1000

export type InstallStep = 'registering' | 'installing' | 'installed' | 'activating' | 'activated' | 'controlled'

/** How far the installing worker is: `done` of its `total` files saved for offline use. */
export interface InstallFiles { done: number; total: number }

export interface RegisterOptions {
  /** Called on each step; while installing, also after each file the worker has saved. */
  onStep?: (step: InstallStep, files?: InstallFiles) => void
}

/** Reports `worker`'s states until the returned function is called. */
function follow(worker: ServiceWorker, onStep: NonNullable<RegisterOptions['onStep']>): () => void {
  const report = () => {
    const state = worker.state
    if (state === 'installing' || state === 'installed' || state === 'activating' || state === 'activated') onStep(state)
  }
  report()
  worker.addEventListener('statechange', report)
  return () => worker.removeEventListener('statechange', report)
}

/**
 * Reports the installing worker's progress messages until the returned function is called.
 * Listening starts before the worker is registered: a message that arrives with no listener is
 * lost. The last one may come after the worker's 'installed' (they travel apart): the splash
 * keeps its count but never steps back.
 */
function followInstall(onStep: NonNullable<RegisterOptions['onStep']>): () => void {
  const progress = (event: MessageEvent) => {
    const { type, done, total } = (event.data ?? {}) as { type?: string; done?: unknown; total?: unknown }
    if (type !== 'outpost-install-progress' || !(event.source instanceof ServiceWorker)) return
    if (typeof done === 'number' && typeof total === 'number' && total > 0) onStep('installing', { done: Math.min(done, total), total })
  }
  navigator.serviceWorker.addEventListener('message', progress)
  navigator.serviceWorker.startMessages()
  return () => navigator.serviceWorker.removeEventListener('message', progress)
}

export async function registerBackend(opts: RegisterOptions = {}): Promise<void> {
  const onStep = opts.onStep ?? (() => undefined)
  if (!('serviceWorker' in navigator)) throw new Error('This browser has no service workers; Outpost cannot run here.')
  const url = import.meta.env.DEV ? '/dev-sw.js?dev-sw' : '/service-worker.js'
  onStep('registering')
  const stopInstall = followInstall(onStep)
  const registration = await navigator.serviceWorker.register(url, { type: 'module', scope: '/' })
  if (!navigator.serviceWorker.controller) {
    // First visit: the new worker claims this page while it activates.
    const worker = registration.installing ?? registration.waiting ?? registration.active
    const stop = worker ? follow(worker, onStep) : () => undefined
    await navigator.serviceWorker.ready
    if (!navigator.serviceWorker.controller) {
      await new Promise<void>((resolve) => {
        navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true })
        setTimeout(resolve, 5000)
      })
    }
    // Its 'activated' comes after the claim: from here on the splash shows the app starting.
    stop()
    if (!navigator.serviceWorker.controller) {
      window.location.reload()
      return
    }
  }
  stopInstall()
  onStep('controlled')
  navigator.serviceWorker.addEventListener('controllerchange', () => window.location.reload(), { once: true })
  const check = () => { registration.update().catch(() => { /* offline: try again later */ }) }
  window.addEventListener('online', check)
  setInterval(check, UPDATE_CHECK_MS)
}
