/**
 * @module classes/engine_style
 * The XML map style (spec §2.2 `engine_style`, the original's `mapserver_style`, a spelling
 * core/identifiers translates at the edge): its XML with the map/layer/class/style structure,
 * validated on write, drawn by render/. Lives under a feature layer; without `xml` it gets a
 * default style for the layer's geometry.
 */
import { validationError } from '../../core/error.ts'
import { expectKind, expectObject } from '../../core/validate.ts'
import { isFeatureLayerClass, styledLayerOf } from '../../render/parent.ts'
import { StyleError, type GeometryKind } from '../../render/style.ts'
import type { ClassContext, ClassData, ClassEnv, ClassFactory } from '../types.ts'
import { parseMapserverXml } from './mapserver-xml.ts'
import { defaultStyleXml } from './default-style.ts'

/** The member as sent (the original's `mapserver_style` arrives renamed: core/identifiers). */
function memberOf(members: Record<string, unknown>): Record<string, unknown> | undefined {
  return members.engine_style === undefined ? undefined : expectObject(members.engine_style, '$.engine_style')
}

function checkedXml(xml: unknown, geom: GeometryKind): string {
  const path = '$.engine_style.xml'
  const s = expectKind<string>('str', xml, path)
  try {
    parseMapserverXml(s, geom)
  } catch (err) {
    if (err instanceof StyleError) {
      throw validationError(`Invalid style: ${err.message.replace(/ - at (.*)$/, '')} - at \`${path}\` (${err.where})`,
        { location: ['body', 'engine_style', 'xml'], where: err.where })
    }
    throw err
  }
  return s
}

function geometryOf(env: ClassEnv, ctx: ClassContext): GeometryKind {
  const layer = styledLayerOf(env.classes, ctx.parent)
  if (!layer.geometry) throw validationError('An engine style must be created under a vector layer.')
  return layer.geometry
}

export const engineStyle: ClassFactory = (env) => ({
  identity: 'engine_style',
  label: 'MapServer style',
  order: 100,
  category: 'layers_and_styles',
  scopes: ['data', 'resource'],
  interfaces: ['IRenderableStyle', 'ILegendableStyle', 'ILegendSymbols'],
  members: ['engine_style'],
  acceptsParent: (p) => isFeatureLayerClass(env.classes, p),

  create(ctx, id, members) {
    const geom = geometryOf(env, ctx)
    const sent = memberOf(members)
    const xml = sent?.xml === undefined ? defaultStyleXml(geom, id) : checkedXml(sent.xml, geom)
    return { xml }
  },

  update(ctx, id, members, data) {
    const sent = memberOf(members)
    if (!sent || sent.xml === undefined) return data
    return { ...data, xml: checkedXml(sent.xml, geometryOf(env, ctx)) }
  },

  serialize(_ctx, _id, data) {
    return { engine_style: { xml: data.xml } }
  },

  capabilities: {
    renderable: {
      kind: 'vector',
      vectorStyle: (data: ClassData, geom) => parseMapserverXml(String(data.xml), geom),
      previewData: (member, geom) => ({ xml: checkedXml(expectObject(member, '$.engine_style').xml, geom) }),
    },
  },
})
