/**
 * @module feature/layer
 * The feature layer a request addresses, found through the class registry's capability
 * lookup: any resource whose class provides the feature-layer capability.
 */
import type { RequestContext } from '../core/routes.ts'
import { resourceNotFound } from '../resource/errors.ts'
import type { FeatureVariables } from './env.ts'
import type { FeatureLayer } from './types.ts'

/** The feature layer of resource `{id}`; 404 when there is none. */
export async function layerOf(c: RequestContext<FeatureVariables>): Promise<FeatureLayer> {
  const id = Number(c.req.param('id'))
  const layer = await c.get('services').classes.featureLayer(id)
  if (!layer) throw resourceNotFound(id)
  return layer
}

/** The layer of a route declared with `data.write` on its path (the route table checked it). */
export async function writableLayerOf(c: RequestContext<FeatureVariables>): Promise<FeatureLayer> {
  const layer = await layerOf(c)
  return layer
}
