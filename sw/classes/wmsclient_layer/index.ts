/**
 * @module classes/wmsclient_layer
 * A layer of a remote WMS (reference ngw-services §3.3–3.4): `wmsclient_layer: {connection,
 * wmslayers, imgformat, srs, remote_srs, vendor_params}`. It draws itself (`IRenderableStyle`,
 * render kind `image`): every render of it asks its connection's GetMap in `remote_srs`
 * (defaulting to `srs`: NextGIS Connect sends no `remote_srs`) and warps the image into the
 * view's system when they differ. Its extent is the union of its layers' boxes in the stored
 * capabilities (the whole world when one has none, or nothing is stored). Reading its data
 * needs `connection.connect` on the connection, as in the original.
 */
import { validationError } from '../../core/error.ts'
import { expectKeys, expectKind, expectObject, expectRef } from '../../core/validate.ts'
import { memberSrs } from '../../ingest/member.ts'
import { findSrs } from '../../geo/srs.ts'
import type { Bbox } from '../../geo/geometry.ts'
import { drawWmsView, type WmsLayerParams } from '../../ogc/client/getmap.ts'
import type { ClassContext, ClassData, ClassFactory } from '../types.ts'

const CLASS = 'wmsclient_layer'
const CONNECTION_CLASS = 'wmsclient_connection'
const P = `$.${CLASS}`
const KEYS = ['connection', 'wmslayers', 'imgformat', 'srs', 'remote_srs', 'vendor_params']
/** Bounds of `vendor_params`: a few short parameters, as a URL can carry. */
const MAX_VENDOR_PARAMS = 32
const MAX_TEXT = 1024

interface LayerData {
  connection: number
  wmslayers: string
  imgformat: string
  srs: number
  remote_srs: number
  vendor_params: Record<string, string>
}

const WORLD: Bbox = [-180, -90, 180, 90]

function textOf(v: unknown, k: string): string {
  const s = expectKind<string>('str', v, `${P}.${k}`)
  if (!s.trim() || s.length > MAX_TEXT) throw validationError(`Expected a text of 1 to ${MAX_TEXT} characters - at \`${P}.${k}\``)
  return s
}

function vendorParamsOf(v: unknown): Record<string, string> {
  const m = expectObject(v ?? {}, `${P}.vendor_params`)
  const entries = Object.entries(m)
  if (entries.length > MAX_VENDOR_PARAMS) throw validationError(`At most ${MAX_VENDOR_PARAMS} vendor parameters - at \`${P}.vendor_params\``)
  for (const [k, val] of entries) {
    if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(k)) throw validationError(`Invalid parameter name '${k.slice(0, 64)}' - at \`${P}.vendor_params\``)
    if (typeof val !== 'string' || val.length > MAX_TEXT) throw validationError(`Expected a text of at most ${MAX_TEXT} characters - at \`${P}.vendor_params.${k}\``)
  }
  return { ...m } as Record<string, string>
}

/** `remote_srs: {id}`: a system of the server's list, as `srs`. */
function remoteSrsOf(v: unknown): number {
  const id = expectRef(v, `${P}.remote_srs`)
  if (!findSrs(id)) throw validationError(`Spatial reference system id = ${id} is not known - at \`${P}.remote_srs.id\``, { srs_id: id })
  return id
}

async function apply(ctx: ClassContext, member: unknown, prev: LayerData | undefined): Promise<LayerData> {
  const m = expectObject(member, P)
  expectKeys(m, KEYS, P)
  if (!prev) for (const k of ['connection', 'wmslayers', 'imgformat', 'srs']) {
    if (m[k] === undefined || m[k] === null) throw validationError(`Field \`${k}\` is required - at \`${P}\``)
  }
  const connection = m.connection === undefined ? prev!.connection : expectRef(m.connection, `${P}.connection`)
  const conn = (await ctx.tx.resources.refs([connection]))[0]
  if (conn?.cls !== CONNECTION_CLASS) {
    throw validationError(`Resource id = ${connection} is not a WMS connection (${CONNECTION_CLASS}) - at \`${P}.connection\``)
  }
  const srs = m.srs === undefined ? prev!.srs : memberSrs(m, P)
  return {
    connection,
    wmslayers: m.wmslayers === undefined ? prev!.wmslayers : textOf(m.wmslayers, 'wmslayers'),
    imgformat: m.imgformat === undefined ? prev!.imgformat : textOf(m.imgformat, 'imgformat'),
    srs,
    // Lenient as §3.3 recommends: absent on create (NextGIS Connect), the layer's own system.
    remote_srs: m.remote_srs === undefined || m.remote_srs === null ? (prev?.remote_srs ?? srs) : remoteSrsOf(m.remote_srs),
    vendor_params: m.vendor_params === undefined ? prev?.vendor_params ?? {} : vendorParamsOf(m.vendor_params),
  }
}

const paramsOf = (d: LayerData): WmsLayerParams =>
  ({ wmslayers: d.wmslayers, imgformat: d.imgformat, remoteSrs: d.remote_srs, vendorParams: d.vendor_params })

export const wmsClientLayer: ClassFactory = (env) => ({
  identity: CLASS,
  label: 'WMS layer',
  order: 65,
  category: 'layers_and_styles',
  scopes: ['data', 'resource'],
  interfaces: ['IRenderableStyle', 'IBboxLayer'],
  members: [CLASS],
  acceptsParent: (p) => p === 'resource_group',

  async create(ctx, _id, members) {
    if (members[CLASS] === undefined) throw validationError(`Object missing required field \`${CLASS}\` - at \`$\``)
    return (await apply(ctx, members[CLASS], undefined)) as unknown as ClassData
  },

  async update(ctx, _id, members, data) {
    if (members[CLASS] === undefined) return data
    return (await apply(ctx, members[CLASS], data as unknown as LayerData)) as unknown as ClassData
  },

  serialize(_ctx, _id, raw) {
    const d = raw as unknown as LayerData
    return { [CLASS]: { connection: { id: d.connection }, wmslayers: d.wmslayers, imgformat: d.imgformat,
      vendor_params: d.vendor_params, srs: { id: d.srs }, remote_srs: { id: d.remote_srs } } }
  },

  capabilities: {
    renderable: {
      kind: 'image',
      async image(id, data, view, signal) {
        const d = data as unknown as LayerData
        const conn = await env.classes.wmsConnection(d.connection)
        if (!conn) throw validationError(`The connection of layer ${id} (resource id = ${d.connection}) is gone: point the layer at another one (${CLASS}.connection).`)
        return drawWmsView(env.platform, conn, paramsOf(d), view, signal)
      },
      // Tiles drawn through a connection hold while its address, version and login do (not its capabilities).
      async imageVersion(data) {
        const c = (await env.classes.ref((data as unknown as LayerData).connection))?.data as Record<string, unknown> | undefined
        return c ? JSON.stringify([c.url, c.version, c.username, c.password]) : 'gone'
      },
    },
    bboxLayer: {
      async extent(ref) {
        const d = ref.data as unknown as LayerData
        const layers = (await env.classes.wmsConnection(d.connection))?.capcache?.layers
        const boxes = d.wmslayers.split(',').map((name) => layers?.find((l) => l.id === name.trim())?.bbox ?? null)
        if (boxes.some((b) => b === null)) return { bbox: WORLD, srs: 4326 }
        const b = boxes as Bbox[]
        return { bbox: [Math.min(...b.map((x) => x[0])), Math.min(...b.map((x) => x[1])), Math.max(...b.map((x) => x[2])),
          Math.max(...b.map((x) => x[3]))], srs: 4326 }
      },
    },
    dataNeeds: (ref) => ({ on: (ref.data as unknown as LayerData).connection, scope: 'connection', permission: 'connect' }),
  },
})
