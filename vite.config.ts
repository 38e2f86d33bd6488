import { defineConfig, type Plugin } from 'vite'
import vue from '@vitejs/plugin-vue'
import { VitePWA } from 'vite-plugin-pwa'
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { epsgDefinition } from './sw/geo/srs.ts'
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

// The worker's EPSG index (sw/host/sw-epsg.ts): `{code: [name, proj4]}` for every code of
// epsg-index whose definition the backend can use. One file, precached, loaded on first use.
function epsgIndex(): string {
  const all = JSON.parse(readFileSync('node_modules/epsg-index/all.json', 'utf8')) as Record<string, { name: string; proj4: string | null }>
  const out: Record<string, [string, string]> = {}
  for (const [code, rec] of Object.entries(all)) {
    const def = rec.proj4 && epsgDefinition(Number(code), { name: rec.name, proj4: rec.proj4 })
    if (def) out[code] = [rec.name, def.proj4]
  }
  return JSON.stringify(out)
}
const epsgFile = (): Plugin => {
  let text: string | undefined
  return {
    name: 'outpost-epsg-index',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'epsg/epsg.json', source: text ??= epsgIndex() })
    },
    configureServer(server) {
      server.middlewares.use('/epsg/epsg.json', (_req, res) => {
        res.setHeader('content-type', 'application/json')
        res.end(text ??= epsgIndex())
      })
    },
  }
}

// One build makes the UI (src/) and the service worker (sw/host/service-worker.ts), which
// carries the whole backend. The worker precaches the app shell and SQLite's wasm, so the
// app and its API work offline after the first visit.
export default defineConfig({
  // Relative asset URLs: dist/ runs from any path of a static host (GitHub-Pages-style `/<repo>/`).
  base: './',
  plugins: [
    vue(),
    gdalFiles(),
    epsgFile(),
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
        // Relative to the manifest: the app is wherever dist/ is served (`/`, `/demo/`, …).
        start_url: './',
        scope: './',
        icons: MANIFEST_ICONS,
      },
      injectManifest: {
        rollupFormat: 'es',
        globPatterns: ['**/*.{js,css,html,wasm,png,svg,webmanifest,pmtiles}', 'epsg/*.json'],
        // GDAL's 40 MB are cached at runtime on first use, not on install.
        globIgnores: ['gdal/**'],
        maximumFileSizeToCacheInBytes: 16 << 20,
      },
      devOptions: { enabled: true, type: 'module' },
    }),
  ],
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['@sqlite.org/sqlite-wasm'] },
  // Two pages: the app, and the embed page (a web map alone, for an iframe; src/embed.ts).
  build: { target: 'es2022', chunkSizeWarningLimit: 2048, rollupOptions: { input: { main: 'index.html', embed: 'embed.html' } } },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
  server: { host: '127.0.0.1', port: 5173 },
})
