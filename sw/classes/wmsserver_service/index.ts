/**
 * @module classes/wmsserver_service
 * A WMS service (reference ngw-services §2.1): `wmsserver_service: {layers: [{keyname,
 * display_name, resource_id, min_scale_denom, max_scale_denom}]}`, served at
 * `/api/resource/{id}/wms` (`routes.ts`, the protocol in sw/ogc/). Reading the member needs
 * `service.connect` (else it is `{}`), changing it `service.configure`. A layer is any resource
 * the render path can draw (a class declaring `IRenderableStyle`, looked up by that, not by
 * name). Unlike the original, a repeated resource or keyname is a 422, not a 500 or a silent
 * shadow, and a resource that cannot be drawn is refused on write rather than at GetMap.
 */
import { forbidden, validationError } from '../../core/error.ts'
import { expectKeys, expectKind, expectObject, locationOf } from '../../core/validate.ts'
import type { WmsLayerConfig } from '../../ogc/types.ts'
import type { ClassContext, ClassData, ClassFactory, WriteContext } from '../types.ts'

export const WMS_SERVICE = 'wmsserver_service'
const PATH = `$.${WMS_SERVICE}`
const LAYER_KEYS = ['keyname', 'display_name', 'resource_id', 'min_scale_denom', 'max_scale_denom']
/** Layers of one service at most: each capabilities request reads every one. */
const MAX_LAYERS = 1000
/** The original's keyname rule `^[A-Za-z][\w]*$`; a bound on its length keeps documents sane. */
const KEYNAME = /^[A-Za-z]\w{0,254}$/

export interface WmsServiceData { layers: WmsLayerConfig[] }

export const wmsServiceOf = (data: ClassData): WmsServiceData => ({ layers: [], ...(data as Partial<WmsServiceData>) })

/** Whether the request's user has `service.<permission>` on `id` (no evaluator: the demo's seeding, allowed). */
const may = async (ctx: ClassContext, id: number, permission: string) =>
  !ctx.acl || await ctx.acl.check(ctx.tx.acl, ctx.user, id, 'service', permission) !== false

const invalid = (message: string, path: string) => validationError(`${message} - at \`${path}\``, { location: locationOf(path) })

function scaleOf(v: unknown, path: string): number | null {
  if (v === undefined || v === null) return null
  const n = expectKind<number>('float', v, path)
  if (n <= 0) throw invalid('Expected a positive scale denominator', path)
  return n
}

async function parseLayers(ctx: WriteContext, member: unknown, renderable: (cls: string) => boolean): Promise<WmsLayerConfig[]> {
  const m = expectObject(member, PATH)
  expectKeys(m, ['layers'], PATH)
  const list = expectKind<unknown[]>('array', m.layers, `${PATH}.layers`)
  if (list.length > MAX_LAYERS) throw invalid(`A service has at most ${MAX_LAYERS} layers`, `${PATH}.layers`)
  const layers = list.map((raw, i): WmsLayerConfig => {
    const path = `${PATH}.layers[${i}]`
    const o = expectObject(raw, path)
    expectKeys(o, LAYER_KEYS, path)
    const keyname = expectKind<string>('str', o.keyname, `${path}.keyname`)
    if (!KEYNAME.test(keyname)) throw invalid(`Invalid keyname '${keyname}': a letter, then letters, digits or underscores`, `${path}.keyname`)
    const displayName = expectKind<string>('str', o.display_name, `${path}.display_name`)
    if (!displayName.trim()) throw invalid('Expected a display name of at least 1 character', `${path}.display_name`)
    const resourceId = expectKind<number>('int', (o.resource_id as unknown), `${path}.resource_id`)
    return { keyname, display_name: displayName, resource_id: resourceId,
      min_scale_denom: scaleOf(o.min_scale_denom, `${path}.min_scale_denom`), max_scale_denom: scaleOf(o.max_scale_denom, `${path}.max_scale_denom`) }
  })
  const seenKey = new Set<string>(), seenId = new Set<number>()
  for (const [i, l] of layers.entries()) {
    if (seenKey.has(l.keyname)) throw invalid(`Keyname '${l.keyname}' is used twice`, `${PATH}.layers[${i}].keyname`)
    if (seenId.has(l.resource_id)) throw invalid(`Resource ${l.resource_id} is used twice`, `${PATH}.layers[${i}].resource_id`)
    seenKey.add(l.keyname); seenId.add(l.resource_id)
  }
  const refs = await ctx.tx.resources.refs(layers.map((l) => l.resource_id))
  const byId = new Map(refs.map((r) => [r.id, r]))
  for (const [i, l] of layers.entries()) {
    const ref = byId.get(l.resource_id)
    const path = `${PATH}.layers[${i}].resource_id`
    if (!ref) throw invalid(`Resource ${l.resource_id} was not found`, path)
    if (!renderable(ref.cls)) throw invalid(`Resource ${l.resource_id} (${ref.cls}) cannot be drawn: a style is expected`, path)
  }
  return layers
}

export const wmsServerService: ClassFactory = (env) => {
  const renderable = (cls: string) => !!env.classes.find(cls)?.interfaces.includes('IRenderableStyle')
  return {
    identity: WMS_SERVICE,
    label: 'WMS service',
    order: 70,
    category: 'maps_and_services',
    scopes: ['resource', 'service'],
    interfaces: [],
    members: [WMS_SERVICE],
    acceptsParent: (p) => p === 'resource_group',

    async create(ctx, _id, members) {
      if (members[WMS_SERVICE] === undefined) throw invalid('Field required: `layers`', PATH)
      return { layers: await parseLayers(ctx, members[WMS_SERVICE], renderable) } as unknown as ClassData
    },

    async update(ctx, id, members, data) {
      if (members[WMS_SERVICE] === undefined) return data
      if (!await may(ctx, id, 'configure')) {
        throw forbidden(`Modification of the '${WMS_SERVICE}.layers' attribute requires the 'configure' permission in scope 'service'.`)
      }
      return { layers: await parseLayers(ctx, members[WMS_SERVICE], renderable) } as unknown as ClassData
    },

    async serialize(ctx, id, data) {
      if (!await may(ctx, id, 'connect')) return { [WMS_SERVICE]: {} }
      return { [WMS_SERVICE]: { layers: wmsServiceOf(data).layers } }
    },

    capabilities: {},
  }
}
