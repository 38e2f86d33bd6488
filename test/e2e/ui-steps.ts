/**
 * Steps shared by the UI specs: a person logs in through the app's forms. Not a spec file;
 * the `ui-*.spec.ts` files import it.
 */
import { expect, type Locator, type Page } from '@playwright/test'
import { gotoControlled, SW_ADMIN_PASSWORD } from './helpers.ts'
import { base64 } from '../api/ingest-files.ts'

/** The password the UI specs choose in the forced first-run change. */
export const NEW_ADMIN_PASSWORD = 'outpost-e2e-secret'

/** A tree row by its display name. */
export const treeNode = (page: Page, name: string): Locator =>
  page.locator(`[data-testid="tree-node"][data-name="${name.replace(/"/g, '\\"')}"]`)

/**
 * Opens the app and waits until the tree is settled: the main resource group, or, for a guest
 * whom the rules give nothing (a fresh installation since issue 21), the line saying so.
 */
export async function openApp(page: Page): Promise<void> {
  await gotoControlled(page)
  await expect(treeNode(page, 'Main resource group').or(page.getByTestId('tree-denied'))).toBeVisible()
}

/** Logs in as the administrator on a fresh profile and chooses a new password. */
export async function firstLogin(page: Page): Promise<void> {
  await page.getByTestId('login-button').click()
  await page.getByTestId('login-name').fill('administrator')
  await page.getByTestId('login-password').fill(SW_ADMIN_PASSWORD)
  await page.getByTestId('login-submit').click()
  await expect(page.getByTestId('password-change-form')).toBeVisible()
  await page.getByTestId('new-password').fill(NEW_ADMIN_PASSWORD)
  await page.getByTestId('confirm-password').fill(NEW_ADMIN_PASSWORD)
  await page.getByTestId('password-submit').click()
  await expect(page.getByTestId('password-change-form')).toHaveCount(0)
  await expect(page.getByTestId('resource-tree')).toBeVisible()
  await expect(page.getByTestId('current-user')).toHaveText('Administrator')
}

/** Logs in as `login` through the login form. */
export async function logIn(page: Page, login: string, password: string): Promise<void> {
  await page.getByTestId('login-button').click()
  await page.getByTestId('login-name').fill(login)
  await page.getByTestId('login-password').fill(password)
  await page.getByTestId('login-submit').click()
  await expect(page.getByTestId('dialog-login')).toHaveCount(0)
}

/** Selects a resource in the tree (its parents must be open). */
export async function pick(page: Page, name: string): Promise<void> {
  await treeNode(page, name).getByTestId('tree-label').click()
  await expect(page.getByTestId('details-name')).toHaveText(name)
}

/** Creates a resource group under the selected group. */
export async function createGroup(page: Page, name: string): Promise<void> {
  await page.getByTestId('action-create').click()
  await page.getByTestId('create-cls').selectOption('resource_group')
  await page.getByTestId('create-display-name').fill(name)
  await page.getByTestId('create-submit').click()
  await expect(page.getByTestId('dialog-create')).toBeHidden()
  await expect(treeNode(page, name)).toBeVisible()
}

/** Drops a file (`bytes`) on the app, as the browser does for a file dragged from the desktop. */
export async function dropFile(page: Page, name: string, bytes: Uint8Array): Promise<void> {
  await page.evaluate(({ name, b64 }) => {
    const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
    const dt = new DataTransfer()
    dt.items.add(new File([data], name))
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }))
    }
  }, { name, b64: base64(bytes) })
}

/**
 * The administrator (logged in on `page`) lets guests read the whole tree and its data: since
 * issue 21 guests read nothing until a rule says so, as on the original.
 */
export async function shareWithGuests(page: Page): Promise<void> {
  const status = await page.evaluate(async () => {
    const principals = await (await fetch('api/component/auth/user/?brief=true')).json() as { id: number; keyname: string }[]
    const guest = principals.find((p) => p.keyname === 'guest')!.id
    const root = await (await fetch('api/resource/0')).json() as { resource: { permissions: unknown[] } }
    const allow = (scope: string) => ({ action: 'allow', principal: { id: guest }, identity: '', scope, permission: 'read', propagate: true })
    const res = await fetch('api/resource/0', { method: 'PUT', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ resource: { permissions: [...root.resource.permissions, allow('resource'), allow('data')] } }) })
    return res.status
  })
  expect(status).toBe(200)
}
