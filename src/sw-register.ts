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
 *
 * The worker is the app's directory's (`/` or e.g. `/demo/` on a static host): its scope is
 * that directory, and it answers the API under it (src/api/base.ts). A start that cannot
 * finish rejects with a sentence for the person (the splash shows it): no service workers,
 * registration refused, the worker failing to install, or no step for STALL_MS.
 */
import { APP_BASE } from './api/base.ts'

/** How often a long-open app looks for a new version. */
const UPDATE_CHECK_MS = 60 * 60 * 1000

/** How long the start may go without a step or a saved file before it is reported as stuck. */
export const STALL_MS = 60_000

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

/** Why no service worker can run here, or undefined when one can. */
function noWorkerReason(): string | undefined {
  if (!window.isSecureContext) {
    return `Outpost runs its offline server in a service worker, which browsers allow only on https:// or http://localhost; this page is ${location.origin}. Open the app over https (or on localhost).`
  }
  if (!('serviceWorker' in navigator)) {
    return 'This browser has no service workers (or they are turned off, as in some private windows); Outpost cannot run here.'
  }
  return undefined
}

/** Rejects `stalled` when `poke` has not been called for STALL_MS; `stop` ends the watch. */
function stallWatch(step: () => string): { stalled: Promise<never>; poke: () => void; stop: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined
  let fail: (err: Error) => void = () => undefined
  const stalled = new Promise<never>((_resolve, reject) => { fail = reject })
  stalled.catch(() => undefined) // raced, never awaited alone
  const poke = () => {
    clearTimeout(timer)
    timer = setTimeout(() => fail(new Error(`The offline server did not start: nothing happened for ${STALL_MS / 1000} s (last step: ${step()}). Reload the page to try again.`)), STALL_MS)
  }
  poke()
  return { stalled, poke, stop: () => clearTimeout(timer) }
}

/** Rejects when `worker` turns redundant: its install failed (a file it saves did not load, its script threw, storage is full). */
function redundant(worker: ServiceWorker): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    worker.addEventListener('statechange', () => {
      if (worker.state === 'redundant') reject(new Error('The offline server failed to install: one of the app\'s files did not load, or the browser could not store it (storage full?). Reload the page to try again; the browser console has the details.'))
    })
  })
}

/** Set for the one reload that hands a first visit to the new worker, so a page it never controls stops reloading. */
const RELOADED = 'outpost-sw-reloaded'

export async function registerBackend(opts: RegisterOptions = {}): Promise<void> {
  const reason = noWorkerReason()
  if (reason) throw new Error(reason)
  // The worker sits next to index.html and serves the app's directory, wherever that is.
  const url = import.meta.env.DEV ? '/dev-sw.js?dev-sw' : `${APP_BASE}service-worker.js`
  let last: InstallStep = 'registering'
  const stall = stallWatch(() => last)
  const onStep: NonNullable<RegisterOptions['onStep']> = (step, files) => { last = step; stall.poke(); opts.onStep?.(step, files) }
  onStep('registering')
  const stopInstall = followInstall(onStep)
  let registration: ServiceWorkerRegistration
  try {
    registration = await Promise.race([navigator.serviceWorker.register(url, { type: 'module', scope: APP_BASE }), stall.stalled])
  } catch (err) {
    stall.stop()
    throw new Error(`The browser did not start the offline server (${new URL(url, location.href).href}): ${err instanceof Error ? err.message : String(err)}`)
  }
  try {
    if (!navigator.serviceWorker.controller) {
      // First visit: the new worker claims this page while it activates.
      const worker = registration.installing ?? registration.waiting ?? registration.active
      const stop = worker ? follow(worker, onStep) : () => undefined
      await Promise.race([navigator.serviceWorker.ready, stall.stalled, ...(worker ? [redundant(worker)] : [])])
      if (!navigator.serviceWorker.controller) {
        await new Promise<void>((resolve) => {
          navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true })
          setTimeout(resolve, 5000)
        })
      }
      // Its 'activated' comes after the claim: from here on the splash shows the app starting.
      stop()
      if (!navigator.serviceWorker.controller) {
        if (sessionStorage.getItem(RELOADED)) {
          sessionStorage.removeItem(RELOADED)
          throw new Error(`The offline server started but does not answer this page (its scope is ${registration.scope}, the page is ${location.href}). Reload the page to try again.`)
        }
        sessionStorage.setItem(RELOADED, '1')
        window.location.reload()
        return
      }
    }
  } finally {
    stall.stop()
  }
  sessionStorage.removeItem(RELOADED)
  stopInstall()
  onStep('controlled')
  stall.stop()
  navigator.serviceWorker.addEventListener('controllerchange', () => window.location.reload(), { once: true })
  const check = () => { registration.update().catch(() => { /* offline: try again later */ }) }
  window.addEventListener('online', check)
  setInterval(check, UPDATE_CHECK_MS)
}
