import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'
import { VitePWA } from 'vite-plugin-pwa'

// One build makes the UI (src/) and the service worker (sw/host/service-worker.ts), which
// carries the whole backend. The worker precaches the app shell and SQLite's wasm, so the
// app and its API work offline after the first visit.
export default defineConfig({
  plugins: [
    vue(),
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
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' },
        ],
      },
      injectManifest: {
        rollupFormat: 'es',
        globPatterns: ['**/*.{js,css,html,wasm,png,svg,webmanifest}'],
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
