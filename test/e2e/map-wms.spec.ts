import { expect, test } from '@playwright/test'
import { firstLogin, openApp } from './ui-steps.ts'
import { countColor, settle } from './map-steps.ts'
import { wmsRemote } from '../api/wms-remote.ts'

// A layer of a remote WMS on the map (issue 26 item 2): listed with the other layers, drawn by
// the worker from the remote's GetMap (the test's WMS paints a box east and north of 0 blue),
// and, with the device offline, still drawn from what the worker kept while it was online (its
// rendered tiles, and behind them the remote's images: cases/wmsclient.ts checks those alone).

test('map: a WMS layer is drawn from the remote, and offline from what was kept', async ({ page, context }) => {
  const remote = await wmsRemote()
  await openApp(page)
  await firstLogin(page)
  const id = await page.evaluate(async (url) => {
    const post = async (body: unknown) => (await fetch('/api/resource/', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body) })).json()
    const conn = await post({ resource: { cls: 'wmsclient_connection', parent: { id: 0 }, display_name: 'E2E WMS' },
      wmsclient_connection: { url, capcache: 'query' } })
    const layer = await post({ resource: { cls: 'wmsclient_layer', parent: { id: 0 }, display_name: 'E2E roads' },
      wmsclient_layer: { connection: { id: conn.id }, wmslayers: 'roads', imgformat: 'image/png', srs: { id: 3857 } } })
    return layer.id as number
  }, remote.url('ok'))

  await page.getByTestId('layer-list-toggle').click()
  await expect(page.getByTestId(`layer-item-${id}`)).toBeVisible()
  // The layer's extent is its capabilities box (10..30 E, 20..40 N): blue there.
  await page.getByTestId(`layer-zoom-${id}`).click()
  await page.getByTestId('layer-list-toggle').click()
  await settle(page)
  const online = await countColor(page, '#0000ff', 6)
  expect(online).toBeGreaterThan(10_000)
  const asked = remote.maps.length
  expect(asked).toBeGreaterThan(0)

  await context.setOffline(true)
  await page.reload()
  await expect(page.getByTestId('offline-indicator')).toBeVisible()
  await settle(page)
  await page.screenshot({ path: 'test-results/map-wms-offline.png' })
  expect(await countColor(page, '#0000ff', 6)).toBeGreaterThan(online / 2)
  expect(remote.maps.length).toBe(asked)
})
