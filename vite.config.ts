import { defineConfig, type Plugin } from 'vite'
import vue from '@vitejs/plugin-vue'
import { VitePWA } from 'vite-plugin-pwa'
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { appIcons, MANIFEST_ICONS } from './scripts/app-icons.ts'

// GDAL's .wasm and .data go to dist/gdal/ as they are: the worker fetches them on first use.
const GDAL_DIR = 'node_modules/gdal3.js/dist/package'
const GDAL_FILES = ['gdal3WebAssembly.wasm', 'gdal3WebAssembly.data']
const gdalFiles = (): Plugin => ({
  name: 'outpost-gdal-files',
  writeBundle(opts) {
    mkdirSync(join(opts.dir!, 'gdal'), { recursive: true })
    for (const f of GDAL_FILES) copyFileSync(join(GDAL_DIR, f), join(opts.dir!, 'gdal', f))
  },
  configureServer(server) {
    server.middlewares.use('/gdal', (req, res, next) => {
      const f = GDAL_FILES.find((n) => req.url === `/${n}`)
      if (f) res.setHeader('content-type', f.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream')
      if (f) res.end(readFileSync(join(GDAL_DIR, f)))
      else next()
    })
  },
})

// One build makes the UI (src/) and the service worker (sw/host/service-worker.ts), which
// carries the whole backend. The worker precaches the app shell and SQLite's wasm, so the
// app and its API work offline after the first visit.
export default defineConfig({
  plugins: [
    vue(),
    gdalFiles(),
    appIcons(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'sw/host',
      filename: 'service-worker.ts',
      injectRegister: false,
      manifest: {
        name: 'Outpost',
        short_name: 'Outpost',
        description: 'A GIS server that lives in the browser and works offline.',
        theme_color: '#1f5f8b',
        background_color: '#ffffff',
        display: 'standalone',
        start_url: '/',
        icons: MANIFEST_ICONS,
      },
      injectManifest: {
        rollupFormat: 'es',
        globPatterns: ['**/*.{js,css,html,wasm,png,svg,webmanifest,pmtiles}'],
        // GDAL's 40 MB are cached at runtime on first use, not on install.
        globIgnores: ['gdal/**'],
        maximumFileSizeToCacheInBytes: 16 << 20,
      },
      devOptions: { enabled: true, type: 'module' },
    }),
  ],
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['@sqlite.org/sqlite-wasm'] },
  build: { target: 'es2022', chunkSizeWarningLimit: 2048 },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
  server: { host: '127.0.0.1', port: 5173 },
})
