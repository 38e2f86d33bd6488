import { defineConfig } from '@playwright/test'
// @ts-expect-error plain JS helper shared with the scripts
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM_HELP } from './scripts/chromium.mjs'

const executablePath = findChromium()
// E2E_PORT lets several checkouts run their browser tests side by side.
const port = Number(process.env.E2E_PORT ?? 4173)
if (!executablePath) throw new Error(NO_CHROMIUM_HELP)

export default defineConfig({
  testDir: 'test/e2e',
  // One browser at a time (E2E_WORKERS=2 for two). Two on CI's 2 cores took as long (911 s
  // against 912 s, 27 Nov) and made races between a test and the app's own reloads likelier.
  workers: Number(process.env.E2E_WORKERS ?? 1),
  // One retry on CI: the machine is shared, and a test that passes on retry is reported as flaky.
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: 'list',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: { executablePath, args: ['--headless', ...CHROMIUM_ARGS] },
    trace: 'off',
  },
  // A production build served as static files: the dev server reloads on its first visit.
  webServer: {
    command: `npx vite preview --port ${port} --strictPort`,
    url: `http://127.0.0.1:${port}/index.html`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
})
