/**
 * @module classes/engine_style
 * The XML map style (spec §2.2 `engine_style`, the original's `mapserver_style`): its XML
 * with the map/layer/class/style structure, validated on write, drawn by render/. Lives
 * under a feature layer; without `xml` it gets a default style for the layer's geometry.
 */
import { validationError } from '../../core/error.ts'
import { expectKind, expectObject } from '../../core/validate.ts'
import { isFeatureLayerClass, styledLayerOf } from '../../render/parent.ts'
import { StyleError, type GeometryKind } from '../../render/style.ts'
import type { ClassContext, ClassData, ClassEnv, ClassFactory } from '../types.ts'
import { parseMapserverXml } from './mapserver-xml.ts'
import { defaultStyleXml } from './default-style.ts'

/** The member as sent: the spec's `engine_style` or the original's `mapserver_style`. */
function memberOf(members: Record<string, unknown>): { m: Record<string, unknown>; name: string } | undefined {
  for (const name of ['engine_style', 'mapserver_style']) {
    if (members[name] !== undefined) return { m: expectObject(members[name], `$.${name}`), name }
  }
  return undefined
}

function checkedXml(xml: unknown, geom: GeometryKind, member: string): string {
  const path = `$.${member}.xml`
  const s = expectKind<string>('str', xml, path)
  try {
    parseMapserverXml(s, geom)
  } catch (err) {
    if (err instanceof StyleError) {
      throw validationError(`Invalid style: ${err.message.replace(/ - at (.*)$/, '')} - at \`${path}\` (${err.where})`,
        { location: ['body', member, 'xml'], where: err.where })
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
  members: ['engine_style', 'mapserver_style'],
  acceptsParent: (p) => isFeatureLayerClass(env.classes, p),

  create(ctx, id, members) {
    const geom = geometryOf(env, ctx)
    const sent = memberOf(members)
    const xml = sent?.m.xml === undefined ? defaultStyleXml(geom, id) : checkedXml(sent.m.xml, geom, sent.name)
    return { xml }
  },

  update(ctx, id, members, data) {
    const sent = memberOf(members)
    if (!sent || sent.m.xml === undefined) return data
    return { ...data, xml: checkedXml(sent.m.xml, geometryOf(env, ctx), sent.name) }
  },

  serialize(_ctx, _id, data) {
    return { engine_style: { xml: data.xml } }
  },

  capabilities: {
    renderable: {
      kind: 'vector',
      vectorStyle: (data: ClassData, geom) => parseMapserverXml(String(data.xml), geom),
      previewData: (member, geom) => ({ xml: checkedXml(expectObject(member, '$.engine_style').xml, geom, 'engine_style') }),
    },
  },
})
