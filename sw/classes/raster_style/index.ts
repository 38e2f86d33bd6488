/**
 * @module classes/raster_style
 * The style of a raster layer (spec §2.2: no member). It lives under its raster layer; render/
 * draws its parent's stored raster (`renderable.kind = 'raster'`).
 */
import type { ClassFactory } from '../types.ts'

export const rasterStyle: ClassFactory = () => ({
  identity: 'raster_style',
  label: 'Raster style',
  order: 100,
  category: 'layers_and_styles',
  scopes: ['data', 'resource'],
  interfaces: ['IRenderableStyle'],
  members: [],
  acceptsParent: (p) => p === 'raster_layer',
  create: () => ({}),
  update: (_ctx, _id, _members, data) => data,
  serialize: () => ({}),
  capabilities: { renderable: { kind: 'raster' } },
})
