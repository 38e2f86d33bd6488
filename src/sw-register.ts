/**
 * Registers the service worker that carries the backend, and resolves once it controls the
 * page, so that the first `/api/` request is answered by it. From then on a new worker
 * taking over reloads the page, so the UI never talks to an API older or newer than itself
 * (unsaved form input survives the reload: forms keep drafts).
 *
 * The way there is reported step by step (the splash shows it): registering, then the new
 * worker's states on a first visit (installing → installed → activating; it claims the page
 * while activating), then controlled. While it installs, the files it has saved for offline use so far are counted.
 */

/** How often a long-open app looks for a new version. */
const UPDATE_CHECK_MS = 60 * 60 * 1000
/** How often the precache is counted while the worker installs. */
const COUNT_MS = 250

export type InstallStep = 'registering' | 'installing' | 'installed' | 'activating' | 'activated' | 'controlled'

export interface RegisterOptions {
  /** Called on each step; `files` = files the installing worker has saved so far. */
  onStep?: (step: InstallStep, files?: number) => void
}

/** Files in Workbox's precache (the page can read the worker's caches, not its progress). */
async function precachedFiles(): Promise<number> {
  let n = 0
  for (const name of await caches.keys()) if (name.startsWith('workbox-precache')) n += (await (await caches.open(name)).keys()).length
  return n
}

/** Reports `worker`'s states until the returned function is called. */
function follow(worker: ServiceWorker, onStep: NonNullable<RegisterOptions['onStep']>): () => void {
  let timer: ReturnType<typeof setInterval> | undefined
  const report = () => {
    const state = worker.state
    if (state === 'installing' || state === 'installed' || state === 'activating' || state === 'activated') onStep(state)
    if (state === 'installing' && timer === undefined && typeof caches !== 'undefined') {
      timer = setInterval(() => {
        precachedFiles().then((files) => { if (worker.state === 'installing') onStep('installing', files) }).catch(() => undefined)
      }, COUNT_MS)
    }
    if (state !== 'installing' && timer !== undefined) { clearInterval(timer); timer = undefined }
  }
  report()
  worker.addEventListener('statechange', report)
  return () => {
    worker.removeEventListener('statechange', report)
    clearInterval(timer)
  }
}

export async function registerBackend(opts: RegisterOptions = {}): Promise<void> {
  const onStep = opts.onStep ?? (() => undefined)
  if (!('serviceWorker' in navigator)) throw new Error('This browser has no service workers; Outpost cannot run here.')
  const url = import.meta.env.DEV ? '/dev-sw.js?dev-sw' : '/service-worker.js'
  onStep('registering')
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
  onStep('controlled')
  navigator.serviceWorker.addEventListener('controllerchange', () => window.location.reload(), { once: true })
  const check = () => { registration.update().catch(() => { /* offline: try again later */ }) }
  window.addEventListener('online', check)
  setInterval(check, UPDATE_CHECK_MS)
}
