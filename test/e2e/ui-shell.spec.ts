import { expect, test, type Page } from '@playwright/test'
import { decode } from 'fast-png'
import { appEntryScript } from './static-host.ts'
import { firstLogin, openApp, pick } from './ui-steps.ts'

// The app shell as a newcomer meets it: a splash in the first paint that follows the worker's
// install, one web manifest with real icons, dialogs and the tree usable from the keyboard,
// and the "New" menu made from the server's blueprint.

test('the splash is in the first paint without any script; the manifest is linked once; the icons are real', async ({ browser, baseURL }) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  await page.goto('/')
  await expect(page.getByTestId('splash')).toBeVisible()
  await expect(page.getByTestId('splash')).toContainText('Outpost')
  await expect(page.locator('#splash svg.splash__icon')).toBeVisible()
  await expect(page.getByRole('progressbar')).toBeVisible()
  await page.screenshot({ path: 'test-results/ui-shell-splash-noscript.png' })

  const html = await (await page.request.get(`${baseURL}/`)).text()
  expect(html.match(/rel="manifest"/g)).toHaveLength(1)
  const manifest = await (await page.request.get(`${baseURL}/manifest.webmanifest`)).json()
  const icons = manifest.icons as { src: string; sizes: string; type: string; purpose: string }[]
  expect(icons.map((i) => [i.sizes, i.type, i.purpose])).toEqual([
    ['192x192', 'image/png', 'any'], ['512x512', 'image/png', 'any'], ['512x512', 'image/png', 'maskable'], ['any', 'image/svg+xml', 'any']])
  for (const icon of icons.filter((i) => i.type === 'image/png')) {
    // Relative to the manifest, so the app runs under any path (subpath.spec.ts).
    const res = await page.request.get(new URL(icon.src, `${baseURL}/manifest.webmanifest`).href)
    expect(res.headers()['content-type']).toBe('image/png')
    const png = decode(await res.body())
    expect(`${png.width}x${png.height}`).toBe(icon.sizes)
    // A drawing, not a flat square: many colours; a maskable icon is full-bleed (opaque corner).
    const colours = new Set<number>()
    for (let i = 0; i < png.data.length; i += 4 * 97) colours.add((png.data[i]! << 16) | (png.data[i + 1]! << 8) | png.data[i + 2]!)
    expect(colours.size).toBeGreaterThan(8)
    expect(png.data[3]).toBe(icon.purpose === 'maskable' ? 255 : 0)
  }
  const svg = await page.request.get(`${baseURL}/icons/icon.svg`)
  expect(svg.headers()['content-type']).toContain('image/svg+xml')
  await context.close()
})

test('first visit: the splash shows the worker install step by step, with the files it saved, then the app replaces it', async ({ page }) => {
  // Every value the splash's data-step, its count of saved files and its bar take, in order.
  await page.addInitScript(() => {
    const seen: string[] = []
    const files: string[] = []
    const bar: number[] = []
    Object.assign(window, { splashSteps: seen, splashFiles: files, splashBar: bar })
    new MutationObserver(() => {
      const el = document.getElementById('splash')
      const step = el?.dataset.step
      if (step && step !== seen[seen.length - 1]) seen.push(step)
      const saved = el?.dataset.total ? `${el.dataset.done}/${el.dataset.total}` : ''
      if (saved && saved !== files[files.length - 1]) files.push(saved)
      const value = Number(el?.querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow'))
      if (value && value !== bar[bar.length - 1]) bar.push(value)
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-step', 'data-done', 'data-total', 'aria-valuenow'] })
  })
  // The app's script is held back: what shows meanwhile is the HTML alone.
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  const entry = appEntryScript()
  await page.route((url) => url.pathname.endsWith(`/${entry}`), async (route) => { await held; await route.continue() })
  await page.goto('/', { waitUntil: 'commit' })
  await expect(page.getByTestId('splash')).toBeVisible()
  await expect(page.getByTestId('splash-text')).toHaveText('Loading the app…')
  await expect(page.getByTestId('app')).toHaveCount(0)
  release()

  // The app as a guest sees it (who reads nothing since issue 21).
  await expect(page.getByTestId('tree-denied')).toBeVisible({ timeout: 20_000 })
  await expect(page.getByTestId('splash')).toHaveCount(0)
  const steps = await page.evaluate(() => (window as unknown as { splashSteps: string[] }).splashSteps)
  // The worker claims the page while it activates: 'controlled' follows 'activating'.
  expect(steps.filter((s, i) => steps.indexOf(s) === i)).toEqual(['loading', 'registering', 'installing', 'installed', 'activating', 'controlled', 'ready'])
  // The worker reported each file it saved: the count rose to the precache's size, the bar with it.
  const { files, bar, precached } = await page.evaluate(async () => {
    let precached = 0
    for (const name of await caches.keys()) if (name.startsWith('workbox-precache')) precached += (await (await caches.open(name)).keys()).length
    const w = window as unknown as { splashFiles: string[]; splashBar: number[] }
    return { files: w.splashFiles, bar: w.splashBar, precached }
  })
  expect(precached).toBeGreaterThan(10)
  expect(files.length).toBeGreaterThan(1)
  expect(files.every((f) => f.endsWith(`/${precached}`))).toBe(true)
  const done = files.map((f) => Number(f.split('/')[0]))
  expect(done).toEqual([...done].sort((a, b) => a - b))
  expect(done[done.length - 1]).toBe(precached)
  expect(bar).toEqual([...bar].sort((a, b) => a - b))
  expect(bar.filter((v) => v > 20 && v < 75).length).toBeGreaterThan(1)
  expect(bar).toContain(75)

  // Next time the worker is in control at once: no install, the app replaces the splash again.
  await page.reload()
  await expect(page.getByTestId('tree-denied')).toBeVisible()
  await expect(page.getByTestId('splash')).toHaveCount(0)
  const again = await page.evaluate(() => (window as unknown as { splashSteps: string[] }).splashSteps)
  expect(again).not.toContain('installing')
  expect(again.slice(-2)).toEqual(['controlled', 'ready'])
})

const focusedTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName)

test('dialogs keep focus inside (Tab, Shift+Tab), close on Escape and give focus back', async ({ page }) => {
  await openApp(page)
  await page.getByTestId('login-button').focus()
  await page.keyboard.press('Enter')
  const dialog = page.getByTestId('dialog-login')
  await expect(dialog).toBeVisible()
  await expect(page.getByTestId('login-name')).toBeFocused()

  // Tab goes round the dialog's controls and comes back to the first; never outside it.
  const order: (string | undefined)[] = [await focusedTestId(page)]
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab')
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true)
    order.push(await focusedTestId(page))
  }
  const cycle = order.indexOf('login-name', 1)
  expect(cycle).toBeGreaterThan(2)
  expect(order.slice(cycle, cycle + 3)).toEqual(order.slice(0, 3))
  // Shift+Tab from the first control goes to the last one.
  await page.keyboard.press('Shift+Tab')
  expect(await focusedTestId(page)).toBe(order[cycle - 1])

  await page.keyboard.press('Escape')
  await expect(dialog).toHaveCount(0)
  await expect(page.getByTestId('login-button')).toBeFocused()
})

test('the tree from the keyboard: one tab stop, arrows, Home, End, Enter (WAI-ARIA tree)', async ({ page }) => {
  await openApp(page)
  // Guests read nothing by default (issue 21): the tree is the administrator's.
  await firstLogin(page)
  const tree = page.getByRole('tree', { name: 'Resources' })
  const item = (name: string) => tree.getByRole('treeitem', { name, exact: true })
  await expect(item('Main resource group')).toHaveAttribute('aria-expanded', 'true')
  await expect(tree.locator('[role="treeitem"][tabindex="0"]')).toHaveCount(1)

  await item('Main resource group').focus()
  await page.keyboard.press('ArrowDown')
  await expect(item('Demo project')).toBeFocused()
  await expect(item('Demo project')).toHaveAttribute('aria-expanded', 'false')
  await page.keyboard.press('ArrowRight')
  await expect(item('Demo project')).toHaveAttribute('aria-expanded', 'true')
  await expect(item('Field observations')).toBeVisible()
  await expect(item('Demo project')).toBeFocused()
  await page.keyboard.press('ArrowRight')
  await expect(item('Field observations')).toBeFocused()
  await expect(item('Field observations')).toHaveAttribute('aria-level', '3')
  await page.keyboard.press('ArrowDown')
  await expect(item('Survey routes')).toBeFocused()
  await page.keyboard.press('End')
  const last = tree.getByRole('treeitem').last()
  await expect(last).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(last).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByTestId('details-name')).toHaveText((await last.getByTestId('tree-node').getAttribute('data-name'))!)
  await page.keyboard.press('ArrowLeft')
  await expect(item('Demo project')).toBeFocused()
  await page.keyboard.press('ArrowLeft')
  await expect(item('Demo project')).toHaveAttribute('aria-expanded', 'false')
  await expect(item('Field observations')).toHaveCount(0)
  await page.keyboard.press('Home')
  await expect(item('Main resource group')).toBeFocused()
  await page.keyboard.press('ArrowUp')
  await expect(item('Main resource group')).toBeFocused()
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press(' ')
  await expect(page.getByTestId('details-name')).toHaveText('Demo project')

  // Still one tab stop, the last focused item: Tab leaves the tree, Shift+Tab comes back to it.
  await expect(tree.locator('[role="treeitem"][tabindex="0"]')).toHaveCount(1)
  await page.keyboard.press('Tab')
  expect(await tree.evaluate((t) => t.contains(document.activeElement))).toBe(false)
  await page.keyboard.press('Shift+Tab')
  await expect(item('Demo project')).toBeFocused()
})

test('the New menu lists the classes of the server\'s blueprint a group may hold; a class without a form of its own gets the generic one', async ({ page }) => {
  // A class the server would announce later, added to its blueprint answer inside the page
  // (the worker serves the API, so Playwright's routing cannot): the menu offers it unchanged.
  await page.addInitScript(() => {
    const original = window.fetch.bind(window)
    window.fetch = async (input, init) => {
      const res = await original(input, init)
      if (!new Request(input, init).url.endsWith('/api/component/resource/blueprint')) return res
      const body = await res.json()
      body.resources.survey_form = { identity: 'survey_form', label: 'Survey form', order: 50, interfaces: [], scopes: ['resource'] }
      return new Response(JSON.stringify(body), { status: res.status, headers: res.headers })
    }
  })
  await openApp(page)
  await firstLogin(page)
  await pick(page, 'Main resource group')
  await page.getByTestId('action-create').click()
  const blueprint = await page.evaluate(async () => (await (await fetch('/api/component/resource/blueprint')).json()).resources as
    Record<string, { identity: string; label: string; order?: number; outpost_parent_classes?: string[] }>)
  expect(blueprint.survey_form).toBeDefined()
  // Not a raster style (it lives under a raster layer); the new class says nothing, so a group is assumed.
  expect(blueprint.raster_style!.outpost_parent_classes).toEqual(['raster_layer'])
  const expected = Object.values(blueprint).filter((c) => c.outpost_parent_classes?.includes('resource_group') ?? true)
    .sort((a, b) => (a.order ?? 1e9) - (b.order ?? 1e9) || a.label.localeCompare(b.label))
  expect(expected.map((c) => c.identity)).toContain('survey_form')
  expect(expected.map((c) => c.identity)).not.toContain('raster_style')
  await expect(page.getByTestId('create-cls').locator('option')).toHaveText(expected.map((c) => c.label))
  expect(await page.getByTestId('create-cls').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)))
    .toEqual(expected.map((c) => c.identity))
  // A group is made by the generic form: names only. Classes with their own form add inputs.
  await expect(page.getByTestId('create-cls')).toHaveValue('resource_group')
  await expect(page.getByTestId('fields-editor')).toHaveCount(0)
  await page.getByTestId('create-cls').selectOption('vector_layer')
  await expect(page.getByTestId('fields-editor')).toBeVisible()
  await page.getByTestId('create-cls').selectOption('lookup_table')
  await expect(page.getByTestId('lookup-editor')).toBeVisible()
  await expect(page.getByTestId('fields-editor')).toHaveCount(0)
  // The new class gets the generic form; this server does not know it and says so in the form.
  await page.getByTestId('create-cls').selectOption({ label: 'Survey form' })
  await expect(page.getByTestId('lookup-editor')).toHaveCount(0)
  await page.getByTestId('create-display-name').fill('Spring survey')
  await page.getByTestId('create-submit').click()
  await expect(page.getByTestId('form-error-message')).toContainText(`Resource class 'survey_form' is not supported`)
})
