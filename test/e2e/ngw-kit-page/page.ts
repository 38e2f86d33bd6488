/**
 * The ngw-kit spec's test page (bundled by esbuild in test/e2e/ngw-kit.spec.ts, run in a page
 * the service worker controls): NextGIS's `WebMap` with ngw-kit's web-map adapter for our web
 * map, drawn with OpenLayers (./ol-adapter.ts). `drawWebmap` resolves when every layer the
 * kit added has drawn, with what the kit reported.
 */
import { WebMap } from '@nextgis/webmap'
import NgwConnector from '@nextgis/ngw-connector'
import { addNgwLayer } from '@nextgis/ngw-kit'
import { OlTestAdapter } from './ol-adapter.ts'

async function drawWebmap(o: { webmap: number; login: string; password: string; size: number }) {
  const target = document.createElement('div')
  target.id = 'kit-map'
  target.style.cssText = `position:fixed;left:0;top:0;width:${o.size}px;height:${o.size}px;background:#fff;z-index:10`
  document.body.append(target)
  const mapAdapter = new OlTestAdapter()
  // WebMap makes its map itself (its `create` option is on by default).
  const webMap = new WebMap({ mapAdapter, target: 'kit-map' } as never)
  await webMap.onLoad()
  const connector = new NgwConnector({ baseUrl: location.origin, auth: { login: o.login, password: o.password } })
  const adapter = await addNgwLayer({ resource: o.webmap, fit: true } as never, webMap as never, connector)
  const layer = await webMap.addLayer(adapter as never, { visibility: true, fit: true } as never) as any
  const map = mapAdapter.map!
  // Drawn: OpenLayers has loaded and painted every image and tile of the view.
  await new Promise<void>((resolve) => map.once('rendercomplete', () => resolve()))
  return {
    bounds: layer.getBounds?.(),
    opacities: map.getAllLayers().map((l) => l.getOpacity()),
  }
}

;(window as unknown as { drawWebmap: typeof drawWebmap }).drawWebmap = drawWebmap
