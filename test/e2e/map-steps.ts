/**
 * Steps shared by the map specs: pixels of the map and waiting for it to be drawn. Not a
 * spec file; the `map-*.spec.ts` files import it.
 */
import type { Page } from '@playwright/test'
import { decode } from 'fast-png'

/**
 * Pixels of the map close to `hex` (within `tolerance` per channel); `clip`: only the square of
 * that many pixels around the map's centre.
 */
export async function countColor(page: Page, hex: string, tolerance = 24, clip?: number): Promise<number> {
  const map = page.getByTestId('map')
  const box = clip ? (await map.boundingBox())! : undefined
  const png = decode(box && clip
    ? await page.screenshot({ clip: { x: box.x + box.width / 2 - clip / 2, y: box.y + box.height / 2 - clip / 2, width: clip, height: clip } })
    : await map.screenshot())
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16))
  const ch = png.channels
  let n = 0
  for (let i = 0; i < png.data.length; i += ch) {
    if (Math.abs(png.data[i]! - r!) <= tolerance && Math.abs(png.data[i + 1]! - g!) <= tolerance && Math.abs(png.data[i + 2]! - b!) <= tolerance) n++
  }
  return n
}

/** Waits until the map has drawn and stopped loading (no tile request pending for a while). */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle').catch(() => undefined)
  await page.waitForTimeout(400)
}
