import { defineConfig } from '@playwright/test'
// @ts-expect-error plain JS helper shared with the scripts
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM_HELP } from './scripts/chromium.mjs'

const executablePath = findChromium()
if (!executablePath) throw new Error(NO_CHROMIUM_HELP)

export default defineConfig({
  testDir: 'test/e2e',
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: 'list',
  use: {
    baseURL: 'http://127.0.0.1:4173',
    launchOptions: { executablePath, args: ['--headless', ...CHROMIUM_ARGS] },
    trace: 'off',
  },
  // A production build served as static files: the dev server reloads on its first visit.
  webServer: {
    command: 'npx vite preview --port 4173 --strictPort',
    url: 'http://127.0.0.1:4173/index.html',
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
})
