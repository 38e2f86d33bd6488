/**
 * @module render/preview
 * Outpost's own `POST /api/component/outpost/render/preview`: draws a style that is not saved
 * yet over its layer, so an editor can show what a change looks like before it is kept.
 * Body: `{"layer": {"id"}, "extent": [minx, miny, maxx, maxy], "size": [w, h], "srs"?: 3857,
 * "<style class>": <its member as a create body sends it>}` → PNG.
 */
import { invalidParameter, validationError } from '../core/error.ts'
import { readJsonObject } from '../core/http.ts'
import { specMembers } from '../core/identifiers.ts'
import { inHandler, type Routes } from '../core/routes.ts'
import { requireIds } from '../auth/checkpoint.ts'
import { expectKind, expectRef } from '../core/validate.ts'
import type { RenderVariables } from './env.ts'
import { resourceNotFound } from '../resource/errors.ts'
import { projectionOf } from '../geo/srs.ts'
import type { Bbox } from '../geo/geometry.ts'
import { layerOf } from './parent.ts'
import { renderStyles, type StyleHandle } from './service.ts'

const MAX_PREVIEW = 2048

export function mountPreview(routes: Routes<RenderVariables>): void {
  routes.add('outpost.render_preview', '/api/component/outpost/render/preview', 'POST', inHandler('data', 'read', 'the posted layer'), async (c) => {
    // The style member in either spelling (`mapserver_style` is `engine_style`).
    const body = specMembers(await readJsonObject(c.req.raw))
    const layerId = expectRef(body.layer, '$.layer')
    // The preview draws the layer's features: data.read on it, as a saved style's tile needs;
    // checked before the rest of the body, so a refused user learns nothing from its validation.
    await requireIds(c.get('services'), c.get('user'), [layerId], 'data', 'read')
    const extent = expectKind<unknown[]>('array', body.extent, '$.extent')
    if (extent.length !== 4 || extent.some((v) => typeof v !== 'number' || !Number.isFinite(v))
      || (extent[0] as number) >= (extent[2] as number) || (extent[1] as number) >= (extent[3] as number)) {
      throw validationError('Expected [minx, miny, maxx, maxy] - at `$.extent`')
    }
    const size = expectKind<unknown[]>('array', body.size, '$.size')
    if (size.length !== 2 || size.some((v) => !Number.isInteger(v) || (v as number) < 1 || (v as number) > MAX_PREVIEW)) {
      throw validationError(`Expected [width, height] from 1 to ${MAX_PREVIEW} - at \`$.size\``)
    }
    const srs = body.srs === undefined ? 3857 : expectKind<number>('int', body.srs, '$.srs')
    if (!projectionOf(srs)) throw invalidParameter('srs', `Spatial reference system id = ${srs} is not known.`)
    const services = c.get('services')
    const cls = services.classes.list().find((k) => k.capabilities.renderable?.previewData && body[k.identity] !== undefined)
    if (!cls) throw validationError('The body carries no style member to preview.')
    const ref = await services.classes.ref(layerId)
    if (!ref) throw resourceNotFound(layerId)
    const layer = layerOf(services.classes, ref)
    if (!layer.geometry || !cls.acceptsParent(layer.cls)) throw validationError(`Resource ${layerId} cannot carry this style - at \`$.layer\``)
    const renderable = cls.capabilities.renderable!
    const data = renderable.previewData!(body[cls.identity], layer.geometry)
    const dataText = JSON.stringify(data)
    const handle: StyleHandle = { id: -1, renderable, data, dataText, dataHash: '', layer }
    const [w, h] = size as [number, number]
    const surface = services.platform.canvas(w, h)
    await renderStyles(services, surface, [handle], { extent: extent as Bbox, srs, width: w, height: h }, { signal: c.req.raw.signal })
    return new Response(await surface.png() as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'image/png', 'cache-control': 'no-store' } })
  })
}
