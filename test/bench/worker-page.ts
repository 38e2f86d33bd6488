/**
 * Shared by the benchmarks: the production build served by `vite preview`, Chromium, and a
 * page the service worker controls that is not the app (the app's start-up and map would
 * share the worker's and the page's threads with the measured requests).
 */
import { execSync, spawn, type ChildProcess } from 'node:child_process'
import { chromium, type Page } from 'playwright-core'
// @ts-expect-error plain JS helper shared with the scripts
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs'

export interface WorkerPage { page: Page; close(): Promise<void> }

/** A JSON request sent from inside the page, so the service worker answers it; throws on an error status. */
export const pageApi = (page: Page, method: string, path: string, body?: unknown) => page.evaluate(async ({ method, path, body }) => {
  const res = await fetch(path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`)
  return text ? JSON.parse(text) : null
}, { method, path, body })

/** Logs in as the administrator (a session cookie) and replaces the first-run password with `password`. */
export async function loginAdmin(page: Page, password: string): Promise<void> {
  await pageApi(page, 'POST', '/api/component/auth/login', { login: 'administrator', password: 'admin' })
  await pageApi(page, 'PUT', '/api/component/auth/user/4', { password })
}

function killGroup(p: ChildProcess): void {
  try { if (p.pid) process.kill(-p.pid, 'SIGTERM') } catch { /* already gone */ }
}

/** Builds (unless BENCH_SKIP_BUILD), serves on `port` and opens a worker-controlled API page. */
export async function openWorkerPage(port: number): Promise<WorkerPage> {
  // BENCH_OUT_DIR: build and serve elsewhere than dist/, so a long run is not changed under it by a build for the tests.
  const outDir = process.env.BENCH_OUT_DIR ? ['--outDir', process.env.BENCH_OUT_DIR] : []
  if (!process.env.BENCH_SKIP_BUILD) execSync(['npx vite build', ...outDir, ...(outDir.length ? ['--emptyOutDir'] : [])].join(' '), { stdio: 'ignore' })
  const preview = spawn('npx', ['vite', 'preview', '--port', String(port), '--strictPort', ...outDir], { stdio: 'ignore', detached: true })
  const browser = await chromium.launch({ executablePath: findChromium(), args: ['--headless', ...CHROMIUM_ARGS] })
  const close = async () => { await browser.close(); killGroup(preview) }
  try {
    let page: Page | undefined
    for (let i = 0; i < 60 && !page; i++) {
      try {
        const p = await browser.newPage()
        await p.goto(`http://127.0.0.1:${port}/`)
        page = p
      } catch { await new Promise((r) => setTimeout(r, 500)) }
    }
    if (!page) throw new Error('vite preview did not start')
    await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 30_000 })
    await page.goto(`http://127.0.0.1:${port}/api/component/pyramid/route`)
    if (!(await page.evaluate(() => !!navigator.serviceWorker?.controller))) throw new Error('the API page is not controlled')
    return { page, close }
  } catch (err) {
    await close()
    throw err
  }
}
