import { expect, test, type Page } from '@playwright/test'
import { firstLogin, openApp, pick, treeNode } from './ui-steps.ts'
import { countColor, settle } from './map-steps.ts'
import { wmsRemote } from '../api/wms-remote.ts'

// WMS in the app (issue 26 item 3), through the forms only: a connection to another service
// (the test's WMS paints a box east and north of 0 blue), one of its layers picked from the
// capabilities and drawn on the map; then a WMS service publishing that layer, whose copied
// address answers GetCapabilities naming it, as a desktop GIS would ask.

async function create(page: Page, cls: string, name: string, fill: () => Promise<void>): Promise<void> {
  await pick(page, 'Main resource group')
  await page.getByTestId('action-create').click()
  await page.getByTestId('create-cls').selectOption(cls)
  await page.getByTestId('create-display-name').fill(name)
  await fill()
  await page.getByTestId('create-submit').click()
  await expect(page.getByTestId('dialog-create')).toBeHidden()
  await expect(treeNode(page, name)).toBeVisible()
}

test('wms: a layer of another service on the map, and a style served to a desktop GIS', async ({ page, context }) => {
  const remote = await wmsRemote()
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await openApp(page)
  await firstLogin(page)

  await create(page, 'wmsclient_connection', 'E2E WMS', async () => {
    await page.getByTestId('wmsconn-url').fill(remote.url('ok'))
    await page.getByTestId('wmsconn-version').selectOption('1.3.0')
  })
  // Its details list the layers stored with it; asking again reads them from the service again.
  await pick(page, 'E2E WMS')
  await expect(page.getByTestId('wms-caps-layer')).toHaveText([/roads\s*Roads/, /water\s*Rivers/])
  const capsAsked = remote.capabilities
  await page.getByTestId('wms-caps-query').click()
  await expect.poll(() => remote.capabilities).toBe(capsAsked + 1)
  await create(page, 'wmsclient_layer', 'E2E roads', async () => {
    // The capabilities stored with the connection: its leaf layers, the formats it offers.
    await expect(page.getByTestId('wmslayer-layers')).toHaveText(/Roads roads\s+Rivers water/)
    await expect(page.getByTestId('wmslayer-format').locator('option')).toHaveText(['image/png', 'image/jpeg'])
    await page.getByTestId('wmslayer-layer-roads').check()
  })
  const id = await page.evaluate(async () => {
    const found = await (await fetch('/api/resource/search/?display_name=E2E%20roads')).json()
    return found[0].resource.id as number
  })

  await page.getByTestId('layer-list-toggle').click()
  await page.getByTestId(`layer-zoom-${id}`).click()
  await page.getByTestId('layer-list-toggle').click()
  await settle(page)
  expect(await countColor(page, '#0000ff', 6)).toBeGreaterThan(10_000)
  expect(remote.maps.at(-1)?.get('layers')).toBe('roads')

  await create(page, 'wmsserver_service', 'E2E service', async () => {
    await page.getByTestId(`wmsservice-style-${id}`).check()
    await expect(page.getByTestId(`wmsservice-keyname-${id}`)).toHaveValue('E2E_roads')
  })
  await pick(page, 'E2E service')
  await page.getByTestId('wms-url-copy').click()
  await expect(page.getByTestId('wms-url-copied')).toHaveText('Address copied.')
  const url = await page.evaluate(() => navigator.clipboard.readText())
  expect(url).toMatch(/^http:\/\/[^/]+\/api\/resource\/\d+\/wms$/)
  const caps = await page.evaluate(async (u) => {
    const r = await fetch(`${u}?SERVICE=WMS&REQUEST=GetCapabilities`)
    return { type: r.headers.get('content-type'), text: await r.text() }
  }, url)
  expect(caps.type).toContain('application/vnd.ogc.wms_xml')
  expect(caps.text).toContain('<Name>E2E_roads</Name>')
  expect(caps.text).toContain('<Title>E2E roads</Title>')
})
