import { expect, test } from '@playwright/test'
import { createGroup, firstLogin, logIn, openApp, pick, treeNode } from './ui-steps.ts'

// Issue 21 item 6, in the app on the worker's backend: the administrator makes a user and a
// group on the users page, gives the group read on one folder in its Permissions tab; the user
// logs in and sees that folder only, with no buttons to change it, and their own permissions.

const USER_PASSWORD = 'collector-secret-1'

test('administrator grants a group read on a folder; its member sees that folder only, without edit buttons', async ({ page }) => {
  const tag = Date.now().toString(36)
  const shared = `Shared ${tag}`
  const secret = `Secret ${tag}`
  const team = `Field team ${tag}`
  const login = `collector${tag}`
  // Guests read nothing since issue 21 (the root's rules as the original installs them).
  await openApp(page)
  await expect(page.getByTestId('tree-denied')).toBeVisible()
  await firstLogin(page)
  await pick(page, 'Main resource group')
  await createGroup(page, shared)
  await pick(page, 'Main resource group')
  await createGroup(page, secret)

  // Users page: a group, then a user in it; a taken login is refused with the API's message.
  await page.getByTestId('admin-open').click()
  const admin = page.getByTestId('dialog-admin')
  await admin.getByTestId('group-new').click()
  await admin.getByTestId('group-keyname').fill(`team${tag}`)
  await admin.getByTestId('group-display-name').fill(team)
  await admin.getByTestId('group-save').click()
  await expect(admin.locator(`[data-testid="group-row"][data-keyname="team${tag}"]`)).toBeVisible()
  await admin.getByTestId('user-new').click()
  await admin.getByTestId('user-keyname').fill('administrator')
  await admin.getByTestId('user-display-name').fill(`Someone ${tag}`)
  await admin.getByTestId('user-save').click()
  await expect(admin.getByTestId('form-error-message')).toHaveText("Principal 'administrator' already exists.")
  await admin.getByTestId('user-keyname').fill(login)
  await admin.getByTestId('user-display-name').fill(`Collector ${tag}`)
  await admin.getByTestId('user-password').fill(USER_PASSWORD)
  await admin.locator(`[data-testid="user-group"][data-keyname="team${tag}"]`).check()
  await admin.getByTestId('user-save').click()
  await expect(admin.locator(`[data-testid="user-row"][data-keyname="${login}"]`)).toBeVisible()
  await admin.getByTestId('modal-close').click()
  await expect(admin).toHaveCount(0)

  // The group may read the shared folder and what is in it.
  await pick(page, shared)
  await page.getByTestId('tab-permissions').click()
  await expect(page.getByTestId('perm-empty')).toBeVisible()
  await page.getByTestId('perm-add').click()
  const rule = page.getByTestId('perm-rule')
  await rule.getByTestId('perm-principal').selectOption({ label: `${team} (group)` })
  await rule.getByTestId('perm-scope').selectOption('resource')
  await rule.getByTestId('perm-permission').selectOption('read')
  await page.getByTestId('perm-save').click()
  await expect(page.getByTestId('perm-saved')).toBeVisible()

  // The rule is stored: after a reload the tab shows it as it was saved.
  await page.reload()
  await expect(treeNode(page, shared)).toBeVisible()
  await pick(page, shared)
  await page.getByTestId('tab-permissions').click()
  await expect(page.getByTestId('perm-rule')).toHaveCount(1)
  await expect(rule.getByTestId('perm-action')).toHaveValue('allow')
  await expect(rule.getByTestId('perm-principal').locator('option:checked')).toHaveText(`${team} (group)`)
  await expect(rule.getByTestId('perm-scope')).toHaveValue('resource')
  await expect(rule.getByTestId('perm-permission')).toHaveValue('read')
  await expect(rule.getByTestId('perm-propagate')).toBeChecked()

  // The member: the shared folder, not the secret one, and nothing to change it with.
  await page.getByTestId('logout-button').click()
  // A guest is told there is nothing to see: no error, and not the administrator's tree.
  await expect(page.getByTestId('tree-denied')).toBeVisible()
  await expect(treeNode(page, shared)).toHaveCount(0)
  await expect(page.getByTestId('error-notice')).toHaveCount(0)
  await logIn(page, login, USER_PASSWORD)
  await expect(page.getByTestId('current-user')).toHaveText(`Collector ${tag}`)
  await expect(page.getByTestId('admin-open')).toHaveCount(0)
  await expect(treeNode(page, shared)).toBeVisible()
  await expect(treeNode(page, secret)).toHaveCount(0)
  await pick(page, shared)
  await page.getByTestId('tab-details').click()
  await page.getByTestId('effective-permissions').locator('summary').click()
  await expect(page.locator('[data-permission="resource.read"]')).toHaveAttribute('data-allowed', 'true')
  await expect(page.locator('[data-permission="resource.update"]')).toHaveAttribute('data-allowed', 'false')
  for (const action of ['create', 'import', 'rename', 'move', 'delete']) await expect(page.getByTestId(`action-${action}`)).toHaveCount(0)
  await page.getByTestId('tab-permissions').click()
  await expect(page.getByTestId('perm-rule')).toHaveCount(1)
  await expect(page.getByTestId('perm-save')).toHaveCount(0)
  await expect(page.getByTestId('perm-action')).toBeDisabled()
})

test('Permissions tab: a refused save shows the API error and keeps the rules as they were', async ({ page }) => {
  const tag = Date.now().toString(36)
  await openApp(page)
  await firstLogin(page)
  await pick(page, 'Main resource group')
  await createGroup(page, `Rules ${tag}`)
  // A user who exists when the tab lists principals and is deleted before the save.
  const id = await page.evaluate(async (keyname) => {
    const r = await fetch('/api/component/auth/user/', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keyname, display_name: keyname }) })
    return ((await r.json()) as { id: number }).id
  }, `gone${tag}`)
  await page.getByTestId('tab-permissions').click()
  await page.getByTestId('perm-add').click()
  await page.getByTestId('perm-principal').selectOption(String(id))
  expect(await page.evaluate(async (uid) => (await fetch(`/api/component/auth/user/${uid}`, { method: 'DELETE' })).status, id)).toBe(200)
  await page.getByTestId('perm-save').click()
  await expect(page.getByTestId('form-error-title')).toHaveText('Validation error')
  await expect(page.getByTestId('form-error-message')).toContainText(String(id))
  await expect(page.getByTestId('perm-saved')).toHaveCount(0)
  // Nothing was stored.
  await page.reload()
  await pick(page, `Rules ${tag}`)
  await page.getByTestId('tab-permissions').click()
  await expect(page.getByTestId('perm-empty')).toBeVisible()
})
