/**
 * Playwright helpers: open the app until its service worker controls the page, and an `Api`
 * that sends requests from inside the page, so they pass through the worker (Playwright's
 * own `page.request` and `page.route` bypass it).
 */
import type { BrowserContext, Page } from '@playwright/test'
import { fromWire, toWire, type Api, type ApiRequest, type WireRequest } from '../api/harness.ts'

/** The browser host's administrator password on a fresh profile. */
export const SW_ADMIN_PASSWORD = 'admin'

export async function gotoControlled(page: Page, path = '/'): Promise<void> {
  await page.goto(path)
  await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 20_000 })
}

export function swApi(page: Page, adminPassword = SW_ADMIN_PASSWORD): Api {
  const requestAll = async (requests: ReadonlyArray<ApiRequest>) => {
    const wires = requests.map(([method, path, opts = {}]) => toWire(method, path, opts, adminPassword))
    // One page call for the whole list: each test-to-page round trip costs tens of milliseconds.
    const answers = await page.evaluate(async (wires: WireRequest[]) => {
      // Built here, in the page: bytes and FormData cannot cross from Node as they are.
      // A plain loop: Uint8Array.from over the string's iterator is slow for uploads of megabytes.
      const bytes = (b64: string) => {
        const bin = atob(b64)
        const out = new Uint8Array(bin.length)
        for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
        return out
      }
      const out = []
      for (const w of wires) {
        let body: BodyInit | undefined = w.body
        if (w.form) {
          const fd = new FormData()
          for (const p of w.form) {
            if (p.base64 === undefined) fd.append(p.name, p.value ?? '')
            else fd.append(p.name, new Blob([bytes(p.base64)], { type: p.type ?? '' }), p.filename ?? 'blob')
          }
          body = fd
        } else if (w.bytesBase64 !== undefined) {
          body = bytes(w.bytesBase64)
        }
        const res = await fetch(w.path, { method: w.method, headers: w.headers, body, credentials: w.credentials })
        const headers: Record<string, string> = {}
        res.headers.forEach((v, k) => { headers[k] = v })
        const raw = new Uint8Array(await res.arrayBuffer())
        let bin = ''
        for (let i = 0; i < raw.length; i += 0x8000) bin += String.fromCharCode(...raw.subarray(i, i + 0x8000))
        out.push({ status: res.status, headers, text: new TextDecoder().decode(raw), bodyBase64: btoa(bin) })
      }
      return out
    }, wires)
    return answers.map((r) => fromWire(r.status, r.headers, r.text, r.bodyBase64))
  }
  return {
    host: 'service-worker',
    origin: new URL(page.url()).origin,
    requestAll,
    async request(method, path, opts = {}) {
      return (await requestAll([[method, path, opts]]))[0]!
    },
  }
}

/** Stops the context's service workers as the browser does an idle one (GDAL and every cache go with it). */
export async function stopWorker(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page)
  await cdp.send('ServiceWorker.enable')
  await cdp.send('ServiceWorker.stopAllWorkers')
  await cdp.detach()
}
