/**
 * @module splash
 * The start-up splash of index.html (plain HTML, in the first paint): its bar and text follow
 * the service worker's install (while it saves its files, the fraction it reports), and it
 * fades out when the app has shown its first screen. `data-step` on the element names the
 * current step; `data-done` and `data-total` count the files the worker has saved.
 */
import type { InstallFiles, InstallStep } from './sw-register.ts'

export type SplashStep = 'loading' | InstallStep | 'ready'

const STEPS: Record<SplashStep, { progress: number; text: string }> = {
  loading: { progress: 6, text: 'Loading the app…' },
  registering: { progress: 12, text: 'Setting up the offline server…' },
  installing: { progress: 20, text: 'Saving the app on this device for offline use…' },
  installed: { progress: 75, text: 'Saved for offline use.' },
  activating: { progress: 82, text: 'Starting the offline server…' },
  activated: { progress: 90, text: 'The offline server is running.' },
  controlled: { progress: 95, text: 'Opening your data…' },
  ready: { progress: 100, text: '' },
}

const ORDER = Object.keys(STEPS) as SplashStep[]

const element = () => document.getElementById('splash')

/** Shows `step`; while installing, the `files` saved so far move the bar towards the next step. */
export function splashStep(step: SplashStep, files?: InstallFiles): void {
  const el = element()
  if (!el) return
  if (files) Object.assign(el.dataset, { done: String(files.done), total: String(files.total) })
  // The worker's 'installing' may come after its first progress messages: the count stays.
  else if (step === 'installing' && el.dataset.total) files = { done: Number(el.dataset.done), total: Number(el.dataset.total) }
  const current = el.dataset.step as SplashStep | undefined
  if (current && ORDER.indexOf(step) < ORDER.indexOf(current)) return
  const { text } = STEPS[step]
  let { progress } = STEPS[step]
  if (step === 'installing' && files) progress += (STEPS.installed.progress - progress) * (files.done / files.total)
  el.dataset.step = step
  el.style.setProperty('--progress', `${progress.toFixed(1)}%`)
  const bar = el.querySelector('[role="progressbar"]')
  bar?.setAttribute('aria-valuenow', String(Math.round(progress)))
  if (files) bar?.setAttribute('aria-valuetext', `${files.done} of ${files.total} files saved`)
  else bar?.removeAttribute('aria-valuetext')
  const status = el.querySelector('.splash__text')
  if (status) status.textContent = files ? `${text} (${files.done} of ${files.total} files)` : text
}

/** The app could not start: the splash stays and says why. */
export function splashError(message: string): void {
  const el = element()
  if (!el) return
  el.dataset.step = 'error'
  el.classList.add('splash--error')
  const status = el.querySelector('.splash__text')
  if (status) status.textContent = message
}

/** Fades the splash out and removes it; the app under it takes over. */
export function hideSplash(): void {
  const el = element()
  if (!el || el.classList.contains('splash--done')) return
  splashStep('ready')
  el.classList.add('splash--done')
  const remove = () => el.remove()
  el.addEventListener('transitionend', remove, { once: true })
  // No transition runs when the page is hidden or motion is reduced.
  setTimeout(remove, 400)
}
