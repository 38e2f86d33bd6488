import { expect, test } from '@playwright/test'
import { createGroup, firstLogin, openApp, pick, treeNode } from './ui-steps.ts'

// The app installed once works without a network: the shell comes from the worker's
// precache, the API from the worker itself, and what the person creates is kept.

test('offline: after install, a group created without network survives a reload', async ({ page, context }) => {
  await openApp(page)
  await firstLogin(page)
  await expect(page.getByTestId('offline-indicator')).toHaveCount(0)

  await context.setOffline(true)
  await expect(page.getByTestId('offline-indicator')).toBeVisible()
  await page.reload()
  await expect(treeNode(page, 'Main resource group')).toBeVisible()
  await expect(page.getByTestId('offline-indicator')).toBeVisible()
  // Still logged in: the session cookie is answered by the worker, not the network.
  await expect(page.getByTestId('current-user')).toHaveText('Administrator')

  const name = `Offline group ${Date.now()}`
  await pick(page, 'Main resource group')
  await createGroup(page, name)

  await page.reload()
  await expect(page.getByTestId('offline-indicator')).toBeVisible()
  await expect(treeNode(page, name)).toBeVisible()
  await expect(treeNode(page, 'Demo project')).toBeVisible()

  const stored = await page.evaluate(async () => {
    const res = await fetch('/api/resource/?parent=0')
    return { status: res.status, host: res.headers.get('x-outpost-host'),
      items: (await res.json()) as { resource: { display_name: string; cls: string } }[] }
  })
  expect(stored.status).toBe(200)
  expect(stored.host).toBe('service-worker')
  expect(stored.items.map((i) => i.resource)).toContainEqual(expect.objectContaining({ display_name: name, cls: 'resource_group' }))

  await context.setOffline(false)
  await expect(page.getByTestId('offline-indicator')).toHaveCount(0)
})
