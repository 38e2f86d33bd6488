import { expect, test } from '@playwright/test'
import { openApp, pick, treeNode } from './ui-steps.ts'

// A phone-sized screen: the sidebar is a drawer over the map, controls are touch-sized.

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 })

test('phone: the tree in a drawer over the map, touch-sized rows', async ({ page }) => {
  await openApp(page)
  await treeNode(page, 'Demo project').getByTestId('tree-toggle').tap()
  await expect(treeNode(page, 'Field observations')).toBeVisible()
  await pick(page, 'Field observations')
  await expect(page.getByTestId('details-field')).toHaveCount(5)

  // Nothing is wider than the screen, and tree rows are easy to hit with a finger.
  const width = await page.evaluate(() => document.documentElement.scrollWidth)
  expect(width).toBeLessThanOrEqual(390)
  const row = await treeNode(page, 'Field observations').getByTestId('tree-label').boundingBox()
  expect(row!.height).toBeGreaterThanOrEqual(44)
  const drawer = await page.getByTestId('sidebar').boundingBox()
  expect(drawer!.width).toBeLessThan(390)
  await page.screenshot({ path: 'test-results/ui-phone-tree.png' })

  // The menu button hides the drawer and shows the map; it comes back the same way.
  await page.getByTestId('sidebar-toggle').tap()
  await expect(page.getByTestId('sidebar')).toBeHidden()
  const map = await page.getByTestId('map').boundingBox()
  expect(map!.width).toBe(390)
  await expect(page.locator('.ol-viewport canvas').first()).toBeVisible()
  await page.screenshot({ path: 'test-results/ui-phone-map.png' })
  await page.getByTestId('sidebar-toggle').tap()
  await expect(treeNode(page, 'Field observations')).toBeVisible()
})
