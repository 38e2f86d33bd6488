/**
 * @module classes/qgis_vector_style
 * The QGIS style of a vector layer (the original's `qgis_vector_style`): created from an
 * uploaded `.qml` (`{"qgis_vector_style": {"file_upload": {"id": …}}}`) or, without a file,
 * as a default single-symbol style; drawn by render/ and served back by
 * `GET /api/resource/{id}/qml`.
 */
import { validationError } from '../../core/error.ts'
import { expectObject } from '../../core/validate.ts'
import { isFeatureLayerClass, styledLayerOf } from '../../render/parent.ts'
import { StyleError, type GeometryKind } from '../../render/style.ts'
import { readUpload, resolveUploadRef } from '../../upload/service.ts'
import type { ClassContext, ClassEnv, ClassFactory, Prepared } from '../types.ts'
import { parseQml } from './qml.ts'
import { defaultQml } from './default-qml.ts'

const MEMBER = 'qgis_vector_style'
/** What `prepare` read of the uploaded file, for `create`/`update`. */
type PreparedQml = Prepared & { qml: string }

function geometryOf(env: ClassEnv, ctx: ClassContext): GeometryKind {
  const layer = styledLayerOf(env.classes, ctx.parent)
  if (!layer.geometry) throw validationError('A QGIS vector style must be created under a vector layer.')
  return layer.geometry
}

function checkedQml(qml: string, geom: GeometryKind): string {
  try {
    parseQml(qml, geom)
  } catch (err) {
    if (err instanceof StyleError) {
      throw validationError(`Invalid QML: ${err.message.replace(/ - at (.*)$/, '')} - at \`$.${MEMBER}.file_upload\` (${err.where})`,
        { location: ['body', MEMBER, 'file_upload'], where: err.where })
    }
    throw err
  }
  return qml
}

export const qgisVectorStyle: ClassFactory = (env) => ({
  identity: 'qgis_vector_style',
  label: 'QGIS vector style',
  order: 100,
  category: 'layers_and_styles',
  scopes: ['data', 'resource'],
  interfaces: ['IRenderableStyle', 'ILegendableStyle', 'ILegendSymbols'],
  members: [MEMBER],
  acceptsParent: (p) => isFeatureLayerClass(env.classes, p),

  async prepare(_penv, members) {
    if (members[MEMBER] === undefined) return undefined
    const m = expectObject(members[MEMBER], `$.${MEMBER}`)
    if (m.file_upload === undefined || m.file_upload === null) return undefined
    const ref = await resolveUploadRef(env, m.file_upload, `$.${MEMBER}.file_upload`)
    const bytes = await readUpload(env, ref.id)
    let qml: string
    try {
      qml = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    } catch {
      throw validationError(`The QML file is not UTF-8 text - at \`$.${MEMBER}.file_upload\``)
    }
    const prepared: PreparedQml = { qml, discard: async () => {}, settle: () => {} }
    return prepared
  },

  create(ctx, id) {
    const geom = geometryOf(env, ctx)
    const text = (ctx.prepared as PreparedQml | undefined)?.qml
    return { qml: text !== undefined ? checkedQml(text, geom) : defaultQml(geom, id) }
  },

  update(ctx, id, _members, data) {
    const text = (ctx.prepared as PreparedQml | undefined)?.qml
    return text !== undefined ? { ...data, qml: checkedQml(text, geometryOf(env, ctx)) } : data
  },

  serialize() {
    return { [MEMBER]: { svg_marker_library: null } }
  },

  capabilities: {
    renderable: {
      kind: 'vector',
      vectorStyle: (data, geom) => parseQml(String(data.qml), geom),
      files: { qml: { contentType: 'application/xml', body: (data) => String(data.qml) } },
    },
  },
})
