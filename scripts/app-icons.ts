/**
 * Vite plugin: the app's icons, made at build time from one drawing, src/assets/icon.svg.
 * resvg rasterizes it into the PNGs the web manifest lists (192 and 512, and a maskable 512
 * whose glyph is shrunk into the safe zone on a full-bleed background); the SVG itself is the
 * favicon. The index page gets the drawing inline for its splash, so it shows in the first
 * paint without waiting for a request. The dev server answers the same files from memory.
 */
import { readFileSync } from 'node:fs'
import { Resvg } from '@resvg/resvg-js'
import type { Plugin } from 'vite'

const SOURCE = 'src/assets/icon.svg'
/** The placeholder in index.html that becomes the inline drawing. */
const INLINE_MARK = '<!--outpost:icon-->'
/** A maskable icon's safe zone is the centre circle of 80% diameter: the glyph is scaled into it. */
const MASKABLE_SCALE = 0.78

/** The icon entries of the web manifest, in the manifest's own shape; relative to the manifest, so the app runs under any path. */
export const MANIFEST_ICONS = [
  { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
  { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
  { src: 'icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
  { src: 'icons/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
]

/** The drawing with its rounded background made full-bleed and the rest scaled to the safe zone. */
function maskable(svg: string): string {
  const bg = /<rect width="512" height="512" rx="\d+" fill="([^"]+)"\/>/.exec(svg)
  if (!bg) throw new Error(`${SOURCE}: the first element must be the 512×512 rounded background <rect>.`)
  const offset = (256 * (1 - MASKABLE_SCALE)).toFixed(2)
  return svg
    .replace(bg[0], `<rect width="512" height="512" fill="${bg[1]}"/><g transform="translate(${offset} ${offset}) scale(${MASKABLE_SCALE})">`)
    .replace('</svg>', '</g></svg>')
}

const png = (svg: string, size: number) =>
  new Resvg(svg, { fitTo: { mode: 'width', value: size }, font: { loadSystemFonts: false } }).render().asPng()

/** Every icon file by its path under the site root. */
export function iconFiles(svg = readFileSync(SOURCE, 'utf8')): Map<string, Uint8Array | string> {
  return new Map<string, Uint8Array | string>([
    ['icons/icon-192.png', png(svg, 192)],
    ['icons/icon-512.png', png(svg, 512)],
    ['icons/icon-maskable-512.png', png(maskable(svg), 512)],
    ['icons/icon.svg', svg],
  ])
}

export function appIcons(): Plugin {
  let files: Map<string, Uint8Array | string> | undefined
  const all = () => (files ??= iconFiles())
  return {
    name: 'outpost-app-icons',
    generateBundle() {
      for (const [fileName, source] of all()) this.emitFile({ type: 'asset', fileName, source })
    },
    transformIndexHtml(html, ctx) {
      // Only the app's page has the splash (the embed page has none).
      if (!ctx.filename.endsWith('index.html')) return html
      if (!html.includes(INLINE_MARK)) throw new Error(`index.html has no ${INLINE_MARK} for the splash icon.`)
      const svg = all().get('icons/icon.svg') as string
      // Decorative in the splash: the heading next to it names the app.
      return html.replace(INLINE_MARK, svg.replace('<svg ', '<svg class="splash__icon" aria-hidden="true" ').replace(/<!--[\s\S]*?-->\s*/g, ''))
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const body = all().get((req.url ?? '').replace(/^\//, '').replace(/\?.*$/, ''))
        if (body === undefined) return next()
        res.setHeader('content-type', typeof body === 'string' ? 'image/svg+xml' : 'image/png')
        res.end(body)
      })
    },
  }
}
