import { expect, test } from '@playwright/test'
import { firstLogin, openApp, pick, treeNode } from './ui-steps.ts'

// A fresh browser profile: the administrator logs in with the initial password, must pick a
// new one before anything else, and then sees the demo data created on first start.

test('first run: login, forced password change, then the demo project in the tree', async ({ page }) => {
  await openApp(page)
  // A guest is given nothing by the root's rules (issue 21): no tree, no editing actions, a "Log in" button.
  await expect(page.getByTestId('login-button')).toBeVisible()
  await expect(page.getByTestId('tree-denied')).toBeVisible()
  await expect(page.getByTestId('action-rename')).toHaveCount(0)

  await page.getByTestId('login-button').click()
  await page.getByTestId('login-name').fill('administrator')
  await page.getByTestId('login-password').fill('wrong password')
  await page.getByTestId('login-submit').click()
  await expect(page.getByTestId('form-error')).toBeVisible()

  await page.getByTestId('login-password').fill('admin')
  await page.getByTestId('login-submit').click()
  // Nothing else is shown until the password is replaced.
  await expect(page.getByTestId('password-change-form')).toBeVisible()
  await expect(page.getByTestId('resource-tree')).toHaveCount(0)
  await page.getByTestId('new-password').fill('short')
  await expect(page.getByTestId('password-problem')).toContainText('at least 8')
  await page.getByTestId('new-password').fill('a-long-new-password')
  await page.getByTestId('confirm-password').fill('a-different-password')
  await expect(page.getByTestId('password-problem')).toContainText('differ')
  await expect(page.getByTestId('password-submit')).toBeDisabled()
  await page.getByTestId('confirm-password').fill('a-long-new-password')
  await page.getByTestId('password-submit').click()

  await expect(page.getByTestId('current-user')).toHaveText('Administrator')
  await expect(treeNode(page, 'Demo project')).toBeVisible()
  const me = await page.evaluate(async () => (await fetch('/api/component/auth/current_user')).json())
  expect(me).toMatchObject({ keyname: 'administrator', password_change_required: false })

  // The demo project holds two layers and a lookup table; a layer shows its fields.
  await treeNode(page, 'Demo project').getByTestId('tree-toggle').click()
  await expect(treeNode(page, 'Field observations')).toBeVisible()
  await expect(treeNode(page, 'Survey routes')).toBeVisible()
  await expect(treeNode(page, 'Observation kinds')).toBeVisible()
  await pick(page, 'Field observations')
  await expect(page.getByTestId('details-cls')).toHaveText('Vector layer')
  await expect(page.getByTestId('details-field')).toHaveCount(5)
  // Its sample features: four observations, and two routes in the other layer.
  const counts = await page.evaluate(async () => {
    const count = async (name: string) => {
      const [r] = await (await fetch(`/api/resource/search/?display_name=${encodeURIComponent(name)}`)).json()
      return (await (await fetch(`/api/resource/${r.resource.id}/feature_count`)).json()).total_count
    }
    return [await count('Field observations'), await count('Survey routes')]
  })
  expect(counts).toEqual([4, 2])

  // The old password no longer works; the new one does.
  await page.getByTestId('logout-button').click()
  await expect(page.getByTestId('login-button')).toBeVisible()
  await page.getByTestId('login-button').click()
  await page.getByTestId('login-name').fill('administrator')
  await page.getByTestId('login-password').fill('admin')
  await page.getByTestId('login-submit').click()
  await expect(page.getByTestId('form-error')).toBeVisible()
  await page.getByTestId('login-password').fill('a-long-new-password')
  await page.getByTestId('login-submit').click()
  await expect(page.getByTestId('current-user')).toHaveText('Administrator')
  await expect(page.getByTestId('password-change-form')).toHaveCount(0)
})
