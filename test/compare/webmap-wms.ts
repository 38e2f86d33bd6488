/**
 * The `webmap-wms` set of `npm run compare` (issues 25, 26): web maps with their tree, settings,
 * validation, annotations, basemaps, `display_config` and `extent`; the WMS server's member,
 * GetCapabilities (the XML compared as a tree), GetMap, GetFeatureInfo, GetLegendGraphic and
 * its exceptions; the WMS client connection's `capcache` against one small WMS both servers
 * reach. Layer items use a raster layer and its `raster_style`: the original as set up by
 * shared/tools/ngw-real has no vector styles. Unlike the sync set, values are compared (the
 * defaults and the tree are the point), with ids, names, hosts and times masked.
 */
import { XMLParser } from 'fast-xml-parser'
import { decode as decodeJpeg } from 'jpeg-js'
import { writeArrayBuffer } from 'geotiff'
import type { ApiResponse, Auth } from '../api/harness.ts'
import { base64 } from '../api/harness.ts'
import { decodePng } from '../api/render-helpers.ts'
import { wmsRemote } from '../api/wms-remote.ts'
import { type Scenario, type Side } from './core.ts'

/** Keys whose values are ids, times or a server's own: compared by kind only. */
const MASKED = new Set(['id', 'owner_user', 'creation_date', 'layer_style_id', 'style_parent_id', 'resource_id', 'layerId',
  'styleId', 'webmapId', 'user_id', 'request_id', 'guru_meditation', 'key', 'tb', 'upload_meta'])

/** A JSON value with its values kept, except masked keys, and digits and hosts in strings masked. */
function values(v: unknown, key?: string): unknown {
  if (v === null || v === undefined) return null
  if (key !== undefined && MASKED.has(key)) return typeof v
  if (Array.isArray(v)) return v.map((x) => values(x))
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, values(x, k)]))
  if (typeof v === 'string') return v.replace(/https?:\/\/[^/\s"']+/g, 'ORIGIN').replace(/\d+/g, 'N')
  // Coordinates through two projection libraries agree to about 1e-12, not to the last bit.
  if (typeof v === 'number' && !Number.isInteger(v)) return Number(v.toPrecision(10))
  return v
}

const json = (res: ApiResponse) => (res.body === undefined ? (res.text ? `<${res.headers['content-type']}>` : '<empty>') : values(res.body))
/** Only the named member of a resource's JSON. */
const member = (name: string) => (res: ApiResponse) => (res.status === 200 ? values(res.body?.[name]) : json(res))

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' })
/** An XML answer as its content type and its tree (numbers kept, digits in text masked by `values`). */
const xmlTree = (res: ApiResponse) => ({ type: res.headers['content-type'] ?? null,
  tree: res.text.trimStart().startsWith('<') ? values(xml.parse(res.text)) : `<${res.text.slice(0, 60)}>` })
/** An image answer as its type and size; an error as its XML tree. */
function image(res: ApiResponse): unknown {
  const type = res.headers['content-type'] ?? ''
  if (res.status !== 200 || !res.bodyBase64) return xmlTree(res)
  const img = type.startsWith('image/png') ? decodePng(res)
    : type.startsWith('image/jpeg') ? decodeJpeg(Buffer.from(res.bodyBase64, 'base64'), { useTArray: true }) : undefined
  return img ? { type, width: img.width, height: img.height } : { type }
}

/**
 * An RGB GeoTIFF (30–31° E, 60–61° N, 64 px, an orange square in black) as a raster layer with a
 * raster style, in the side's group; the same bytes to both servers.
 */
async function rasterStyle(s: Side): Promise<{ layer: number; style: number }> {
  const px = new Uint8Array(64 * 64 * 3)
  for (let y = 16; y < 48; y++) for (let x = 16; x < 48; x++) px.set([200, 100, 50], (y * 64 + x) * 3)
  const tif = writeArrayBuffer(Object.assign(px, { width: 64, height: 64 }) as never, { width: 64, height: 64, SamplesPerPixel: 3,
    BitsPerSample: [8, 8, 8], PhotometricInterpretation: 2, PlanarConfiguration: 1, ModelPixelScale: [1 / 64, 1 / 64, 0],
    ModelTiepoint: [0, 0, 0, 30, 61, 0], GTModelTypeGeoKey: 2, GTRasterTypeGeoKey: 1, GeographicTypeGeoKey: 4326 })
  const up = await s.quiet('POST', '/api/component/file_upload/', { form: [{ name: 'file', filename: 'square.tif', base64: base64(new Uint8Array(tif)) }] })
  if (up.status !== 200) throw new Error(`upload answered ${up.status}: ${up.text.slice(0, 200)}`)
  const layer = await s.create('raster_layer', s.parent, { raster_layer: { srs: { id: 3857 }, source: { id: up.body.upload_meta[0].id } } })
  const style = await s.create('raster_style', layer)
  return { layer, style }
}

const layerItem = (style: number, name: string, extra: Record<string, unknown> = {}) =>
  ({ item_type: 'layer', display_name: name, layer_style_id: style, layer_adapter: 'image', ...extra })

/** A web map in the side's group with `webmap` (and other members); its id. */
const webmap = (s: Side, members: Record<string, unknown> = {}) => s.create('webmap', s.parent, members)

/** A user (login `<tag>-<what>`, password `secret-pw-1`) as the `Auth` to send requests with. */
async function user(s: Side, what: string): Promise<{ id: number; auth: Auth }> {
  const login = `cmp${s.tag}${what}`.toLowerCase().replace(/[^a-z0-9]/g, '')
  const res = await s.quiet('POST', '/api/component/auth/user/', { body: { keyname: login, display_name: login, password: 'secret-pw-1' } })
  if (res.status !== 200 && res.status !== 201) throw new Error(`creating a user answered ${res.status}: ${res.text.slice(0, 200)}`)
  return { id: res.body.id as number, auth: { login, password: 'secret-pw-1' } }
}

const allow = (principal: number, permission: string, scope = '', propagate = true) =>
  ({ action: 'allow', principal: { id: principal }, identity: '', scope, permission, propagate })

/**
 * Lets `principal` read the root (not what is under it): the original requires `resource.read`
 * on every ancestor of a resource read. The rule stays on the original's root.
 */
async function readRoot(s: Side, principal: number): Promise<void> {
  const root = (await s.quiet('GET', '/api/resource/0')).body.resource.permissions as { principal: { id: number }; permission: string }[]
  if (root.some((r) => r.principal.id === principal && r.permission === 'read')) return
  const res = await s.quiet('PUT', '/api/resource/0', { body: { resource: { permissions: [...root, allow(principal, 'read', 'resource', false)] } } })
  if (res.status !== 200) throw new Error(`the root's permissions answered ${res.status}: ${res.text.slice(0, 200)}`)
}

/** The id of the guest user on this side. */
async function guestId(s: Side): Promise<number> {
  const users = (await s.quiet('GET', '/api/component/auth/user/')).body as { id: number; keyname: string }[]
  return users.find((u) => u.keyname === 'guest')!.id
}

const wms = (id: number, query: string) => `/api/resource/${id}/wms?${query}`
const CAPS = 'SERVICE=WMS&REQUEST=GetCapabilities'
const MAP = 'SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&STYLES=&SRS=EPSG:3857&BBOX=3339584.7,8399737.9,3450904.2,8609400.1&WIDTH=64&HEIGHT=100'

export const webmapWmsScenarios: Scenario[] = [
  { name: 'webmap: defaults, every field, a change', async run(s) {
    const empty = await webmap(s)
    await s.send('empty: webmap member', 'GET', `/api/resource/${empty}`, {}, member('webmap'))
    await s.send('empty: basemap_webmap member', 'GET', `/api/resource/${empty}`, {}, member('basemap_webmap'))
    await s.send('empty: display_config', 'GET', `/api/resource/${empty}/webmap/display_config`, {}, json)
    await s.send('empty: extent', 'GET', `/api/resource/${empty}/webmap/extent`, {}, json)
    const a = await rasterStyle(s)
    const b = await rasterStyle(s)
    const body = { webmap: {
      initial_extent: [10, 20, 30, 40], constraining_extent: [0, 10, 40, 50], title: 'Roads and rivers', draw_order_enabled: true,
      editable: false, annotation_enabled: true, annotation_default: 'messages', legend_symbols: 'expand', measure_srs: { id: 4326 },
      bookmark_resource: null, options: { 'webmap.identification_geometry': true, 'webmap.hmux': false },
      root_item: { item_type: 'root', children: [
        { item_type: 'group', display_name: 'Transport', group_expanded: true, group_enabled: false, group_exclusive: false, children: [
          layerItem(a.style, 'Roads', { layer_enabled: true, layer_identifiable: false, layer_transparency: 40, layer_min_scale_denom: 100000,
            layer_max_scale_denom: 5000, legend_symbols: 'collapse', draw_order_position: 2 })] },
        layerItem(b.style, 'Rivers', { layer_adapter: 'tile' }),
        { item_type: 'group', display_name: 'Only one', group_exclusive: true, children: [
          layerItem(a.style, 'First', { layer_enabled: true }), layerItem(b.style, 'Second', { layer_enabled: true })] },
        { item_type: 'group', display_name: 'Empty' },
      ] } } }
    const full = (await s.send('create with every field', 'POST', '/api/resource/', { body: {
      resource: { cls: 'webmap', parent: { id: s.parent }, display_name: s.name('webmap') }, ...body } })).body?.id
    await s.send('read back', 'GET', `/api/resource/${full}`, {}, member('webmap'))
    await s.send('display_config', 'GET', `/api/resource/${full}/webmap/display_config`, {}, json)
    await s.send('extent', 'GET', `/api/resource/${full}/webmap/extent`, {}, json)
    await s.send('change settings and scalars', 'PUT', `/api/resource/${full}`, { body: { webmap: {
      title: null, extent_left: -5, extent_right: 5, initial_extent: [1, 2, 3, 4], legend_symbols: null } } })
    await s.send('read after the change', 'GET', `/api/resource/${full}`, {}, member('webmap'))
    await s.send('opacity and transparency both sent', 'PUT', `/api/resource/${full}`, { body: { webmap: { root_item: { item_type: 'root', children: [
      layerItem(a.style, 'Both', { layer_opacity: 0.25, layer_transparency: 10 }), layerItem(b.style, 'Opacity', { layer_opacity: 0.5 })] } } } })
    await s.send('read the opacities', 'GET', `/api/resource/${full}`, {}, member('webmap'))
    await s.send('initial_extent null', 'PUT', `/api/resource/${full}`, { body: { webmap: { initial_extent: null } } })
    await s.send('read the unset extent', 'GET', `/api/resource/${full}`, {}, member('webmap'))
    await s.send('option schema', 'GET', '/api/component/webmap/option/schema', {}, json)
  } },
  { name: 'webmap: validation (docs/webmaps.md "Differences")', async run(s) {
    const { style, layer } = await rasterStyle(s)
    const id = await webmap(s)
    const tree = (...children: unknown[]) => ({ webmap: { root_item: { item_type: 'root', children } } })
    const put = (label: string, body: unknown) => s.send(label, 'PUT', `/api/resource/${id}`, { body })
    await put('missing layer_style_id', tree(layerItem(99999999, 'Gone')))
    await put('layer_style_id of a group', tree(layerItem(s.parent, 'Group')))
    await s.send('the map after it', 'GET', `/api/resource/${id}`, {}, member('webmap'))
    await put('back to a good tree', tree())
    await put('layer_style_id of a raster layer', tree(layerItem(layer, 'Layer')))
    await put('back to a good tree', tree())
    await put('unknown layer_adapter', tree(layerItem(style, 'X', { layer_adapter: 'wmts' })))
    await put('min scale < max scale', tree(layerItem(style, 'X', { layer_min_scale_denom: 1000, layer_max_scale_denom: 5000 })))
    await put('back to a good tree', tree())
    await put('layer_enabled "yes"', tree(layerItem(style, 'X', { layer_enabled: 'yes' })))
    await put('unknown item_type', tree({ item_type: 'folder', display_name: 'X' }))
    await put('layer without display_name', tree({ item_type: 'layer', layer_style_id: style, layer_adapter: 'image' }))
    await put('transparency 150', tree(layerItem(style, 'X', { layer_transparency: 150 })))
    await put('unknown key in a layer', tree(layerItem(style, 'X', { colour: 'red' })))
    await put('style_parent_id sent back', tree(layerItem(style, 'X', { style_parent_id: layer })))
    await put('initial_extent out of range', { webmap: { initial_extent: [-200, -90, 180, 90] } })
    await put('unknown measure_srs', { webmap: { measure_srs: { id: 999999 } } })
    await put('missing bookmark_resource', { webmap: { bookmark_resource: { id: 99999999 } } })
    await put('unknown option', { webmap: { options: { 'webmap.nope': true } } })
    await put('option not a bool', { webmap: { options: { 'webmap.hmux': 1 } } })
    await put('annotation_default "maybe"', { webmap: { annotation_default: 'maybe' } })
    await put('extent_left a string', { webmap: { extent_left: 'west' } })
    await s.send('the map after all that', 'GET', `/api/resource/${id}`, {}, member('webmap'))
    await s.send('display_config of a group', 'GET', `/api/resource/${s.parent}/webmap/display_config`)
    await s.send('extent of a group', 'GET', `/api/resource/${s.parent}/webmap/extent`)
  } },
  { name: 'webmap: deleting a style the map uses; a layer the reader may not read', async run(s) {
    const kept = await rasterStyle(s)
    const gone = await rasterStyle(s)
    const hidden = await rasterStyle(s)
    const id = await webmap(s, { webmap: { root_item: { item_type: 'root', children: [
      layerItem(kept.style, 'Kept'), layerItem(gone.style, 'Gone'), layerItem(hidden.style, 'Hidden')] } } })
    await s.send('delete one style', 'DELETE', `/api/resource/${gone.style}`)
    await s.send('the map after the delete', 'GET', `/api/resource/${id}`, {}, member('webmap'))
    await s.send('display_config after the delete', 'GET', `/api/resource/${id}/webmap/display_config`, {}, json)
    const reader = await user(s, 'reader')
    await readRoot(s, reader.id)
    await s.quiet('PUT', `/api/resource/${s.parent}`, { body: { resource: { permissions: [
      allow(reader.id, 'read', 'resource'), allow(reader.id, 'read', 'data')] } } })
    await s.quiet('PUT', `/api/resource/${hidden.layer}`, { body: { resource: { permissions: [
      { ...allow(reader.id, 'read', 'data'), action: 'deny' }] } } })
    await s.send('reader: the map', 'GET', `/api/resource/${id}`, { auth: reader.auth }, member('webmap'))
    await s.send('reader: display_config', 'GET', `/api/resource/${id}/webmap/display_config`, { auth: reader.auth }, json)
    await s.send('reader: extent', 'GET', `/api/resource/${id}/webmap/extent`, { auth: reader.auth }, json)
  } },
  { name: 'webmap: annotations', async run(s) {
    const id = await webmap(s, { webmap: { annotation_enabled: true } })
    const col = `/api/resource/${id}/annotation/`
    const style = { circle: { radius: 5 } }
    const pub = (await s.send('create public', 'POST', col, { body: { geom: 'POINT (1 2)', public: true, description: 'Here', style } })).body?.id
    const own = (await s.send('create private', 'POST', col, { body: { geom: 'POINT (3 4)', public: false, description: '<b>mine</b>' } })).body?.id
    await s.send('create without public', 'POST', col, { body: { geom: 'POINT (5 6)' } })
    await s.send('list', 'GET', col, {}, json)
    await s.send('one', 'GET', `${col}${pub}`, {}, json)
    await s.send('PUT geom only', 'PUT', `${col}${pub}`, { body: { geom: 'POINT (7 8)' } })
    await s.send('after PUT geom only', 'GET', `${col}${pub}`, {}, json)
    await s.send('PUT public changed', 'PUT', `${col}${own}`, { body: { public: true, description: 'x' } })
    await s.send('after PUT public changed', 'GET', `${col}${own}`, {}, json)
    await s.send('unknown id', 'GET', `${col}99999999`)
    await s.send('PUT unknown id', 'PUT', `${col}99999999`, { body: { geom: 'POINT (1 1)' } })
    await s.send('bad WKT', 'POST', col, { body: { geom: 'POINT (1', public: true } })
    await s.send('no geom', 'POST', col, { body: { public: true } })
    await s.send('delete', 'DELETE', `${col}${pub}`)
    await s.send('list after delete', 'GET', col, {}, json)
    await s.send('annotations of a group', 'GET', `/api/resource/${s.parent}/annotation/`)
  } },
  { name: 'basemap_layer and basemap_webmap', async run(s) {
    const qms = JSON.stringify({ id: 1, name: 'OSM', url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', z_min: 0, z_max: 19, epsg: 3857 })
    const create = (label: string, m: unknown) => s.send(label, 'POST', '/api/resource/', { body: {
      resource: { cls: 'basemap_layer', parent: { id: s.parent }, display_name: s.name('basemap') }, basemap_layer: m } })
    const bl = (await create('create basemap_layer', { url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', qms,
      copyright_text: '© OSM', copyright_url: 'https://osm.org/copyright' })).body?.id
    await s.send('read basemap_layer', 'GET', `/api/resource/${bl}`, {}, member('basemap_layer'))
    const bl2 = (await create('create a second', { url: 'https://a/{z}/{x}/{y}.png' })).body?.id
    await create('qms not JSON', { url: 'https://a/{z}/{x}/{y}.png', qms: 'not json' })
    await create('no url', { qms: null })
    await create('z_min > z_max', { url: 'https://a/{z}/{x}/{y}.png', z_min: 10, z_max: 5 })
    const item = { resource_id: bl, display_name: 'OSM', enabled: true, opacity: 0.5 }
    const id = await webmap(s)
    const put = (label: string, m: unknown) => s.send(label, 'PUT', `/api/resource/${id}`, { body: { basemap_webmap: m } })
    await put('one basemap layer twice', { basemaps: [item, { ...item, display_name: 'OSM 2' }] })
    await put('basemaps', { basemaps: [item, { ...item, resource_id: bl2, display_name: 'OSM 2', enabled: false, opacity: null, position: 7 }],
      background_color: 'a0b1c2', disable: false })
    await s.send('read basemap_webmap', 'GET', `/api/resource/${id}`, {}, member('basemap_webmap'))
    await s.send('display_config basemap plugin', 'GET', `/api/resource/${id}/webmap/display_config`, {}, (res) => values(res.body?.mid))
    await put('opacity 0', { basemaps: [{ ...item, opacity: 0 }] })
    await put('not a basemap_layer', { basemaps: [{ ...item, resource_id: s.parent }] })
    await put('background_color "red"', { background_color: 'red' })
    await put('empty display_name', { basemaps: [{ ...item, display_name: '' }] })
    await s.send('delete the basemap layer', 'DELETE', `/api/resource/${bl}`)
    await s.send('basemap_webmap after the delete', 'GET', `/api/resource/${id}`, {}, member('basemap_webmap'))
  } },
  { name: 'wmsserver_service: member and validation', async run(s) {
    const { style, layer } = await rasterStyle(s)
    const svc = (label: string, layers: unknown) => s.send(label, 'POST', '/api/resource/', { body: {
      resource: { cls: 'wmsserver_service', parent: { id: s.parent }, display_name: s.name('wms') }, wmsserver_service: { layers } } })
    const ok = { keyname: 'square', display_name: 'Square', resource_id: style, min_scale_denom: null, max_scale_denom: null }
    const id = (await svc('create', [ok])).body?.id
    await s.send('read', 'GET', `/api/resource/${id}`, {}, member('wmsserver_service'))
    await svc('without layers', undefined)
    await svc('repeated keyname', [ok, { ...ok, display_name: 'Again' }])
    await svc('missing resource', [{ ...ok, resource_id: 99999999 }])
    await svc('a raster layer (not a style)', [{ ...ok, resource_id: layer }])
    await svc('keyname with a space', [{ ...ok, keyname: 'a b' }])
    await svc('empty display_name', [{ ...ok, display_name: '' }])
  } },
  { name: 'wmsserver_service: the protocol', async run(s) {
    const { style } = await rasterStyle(s)
    const other = await rasterStyle(s)
    const id = await s.create('wmsserver_service', s.parent, { wmsserver_service: { layers: [
      { keyname: 'square', display_name: 'Square', resource_id: style, min_scale_denom: null, max_scale_denom: null },
      { keyname: 'limited', display_name: 'Limited', resource_id: other.style, min_scale_denom: 1000000, max_scale_denom: 1000 }] } })
    await s.send('GetCapabilities', 'GET', wms(id, CAPS), {}, xmlTree)
    await s.send('GetCapabilities 1.1.1', 'GET', wms(id, `${CAPS}&VERSION=1.1.1`), {}, xmlTree)
    await s.send('GetCapabilities 1.3.0', 'GET', wms(id, `${CAPS}&VERSION=1.3.0`), {}, xmlTree)
    await s.send('GetCapabilities lower-case names', 'GET', wms(id, 'service=WMS&request=GetCapabilities'), {}, xmlTree)
    await s.send('GetMap PNG', 'GET', wms(id, `${MAP}&LAYERS=square&FORMAT=image/png`), {}, image)
    await s.send('GetMap JPEG', 'GET', wms(id, `${MAP}&LAYERS=square&FORMAT=image/jpeg`), {}, image)
    await s.send('GetMap two layers', 'GET', wms(id, `${MAP}&LAYERS=square,limited&FORMAT=image/png`), {}, image)
    await s.send('GetMap EPSG:4326', 'GET', wms(id, 'SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=square&STYLES=&SRS=EPSG:4326&BBOX=30,60,31,61&WIDTH=50&HEIGHT=50&FORMAT=image/png'), {}, image)
    await s.send('GetMap 1.3.0 CRS', 'GET', wms(id, 'SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=square&STYLES=&CRS=EPSG:3857&BBOX=3339584.7,8399737.9,3450904.2,8609400.1&WIDTH=64&HEIGHT=100&FORMAT=image/png'), {}, image)
    await s.send('GetMap POST form', 'POST', wms(id, ''), { raw: `${MAP}&LAYERS=square&FORMAT=image/png`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' } }, image)
    await s.send('GetFeatureInfo on a raster', 'GET', wms(id, `${MAP.replace('GetMap', 'GetFeatureInfo')}&LAYERS=square&QUERY_LAYERS=square&X=32&Y=50&INFO_FORMAT=application/json`), {}, xmlTree)
    await s.send('GetLegendGraphic of a raster', 'GET', wms(id, 'SERVICE=WMS&REQUEST=GetLegendGraphic&LAYER=square&FORMAT=image/png'), {}, image)
    // Exceptions.
    await s.send('unknown layer', 'GET', wms(id, `${MAP}&LAYERS=nope&FORMAT=image/png`), {}, xmlTree)
    await s.send('unknown SRS', 'GET', wms(id, `${MAP.replace('EPSG:3857', 'EPSG:999999')}&LAYERS=square&FORMAT=image/png`), {}, xmlTree)
    await s.send('SRS not EPSG', 'GET', wms(id, `${MAP.replace('EPSG:3857', 'FOO')}&LAYERS=square&FORMAT=image/png`), {}, xmlTree)
    await s.send('unknown format', 'GET', wms(id, `${MAP}&LAYERS=square&FORMAT=image/gif`), {}, xmlTree)
    await s.send('unknown style', 'GET', wms(id, `${MAP.replace('STYLES=', 'STYLES=fancy')}&LAYERS=square&FORMAT=image/png`), {}, xmlTree)
    await s.send('no BBOX', 'GET', wms(id, `${MAP.replace(/BBOX=[^&]*&/, '')}&LAYERS=square&FORMAT=image/png`), {}, xmlTree)
    await s.send('no WIDTH', 'GET', wms(id, `${MAP.replace('WIDTH=64&', '')}&LAYERS=square&FORMAT=image/png`), {}, xmlTree)
    await s.send('no LAYERS', 'GET', wms(id, `${MAP}&FORMAT=image/png`), {}, xmlTree)
    await s.send('no REQUEST', 'GET', wms(id, 'SERVICE=WMS'), {}, xmlTree)
    await s.send('unknown REQUEST', 'GET', wms(id, 'SERVICE=WMS&REQUEST=GetStyles'), {}, xmlTree)
    await s.send('SERVICE=WFS', 'GET', wms(id, 'SERVICE=WFS&REQUEST=GetCapabilities'), {}, xmlTree)
    await s.send('WIDTH 0', 'GET', wms(id, `${MAP.replace('WIDTH=64', 'WIDTH=0')}&LAYERS=square&FORMAT=image/png`), {}, xmlTree)
    await s.send('BBOX of three numbers', 'GET', wms(id, `${MAP.replace(/BBOX=[^&]*/, 'BBOX=1,2,3')}&LAYERS=square&FORMAT=image/png`), {}, xmlTree)
    await s.send('se_inimage', 'GET', wms(id, `${MAP}&LAYERS=nope&FORMAT=image/png&EXCEPTIONS=application/vnd.ogc.se_inimage`), {}, image)
    await s.send('wms of a group', 'GET', wms(s.parent, CAPS), {}, xmlTree)
    // Who may use it: the group lets guests read resources but not connect.
    const reader = await user(s, 'wms')
    const guest = await guestId(s)
    await readRoot(s, reader.id)
    await readRoot(s, guest)
    await s.quiet('PUT', `/api/resource/${s.parent}`, { body: { resource: { permissions: [
      allow(guest, 'read', 'resource'), allow(reader.id, 'read', 'resource'), allow(reader.id, 'read', 'data'),
      { ...allow(guest, 'connect', 'service'), action: 'deny' }, { ...allow(reader.id, 'connect', 'service'), action: 'deny' }] } } })
    await s.send('guest without service.connect', 'GET', wms(id, CAPS), { auth: 'guest' }, (res) => ({ ...xmlTree(res), auth: res.headers['www-authenticate'] ?? null }))
    await s.send('user without service.connect', 'GET', wms(id, CAPS), { auth: reader.auth }, xmlTree)
    await s.send('guest reads the member', 'GET', `/api/resource/${id}`, { auth: 'guest' }, member('wmsserver_service'))
  } },
  { name: 'wmsclient_connection: capcache against one WMS both reach', async run(s) {
    const remote = await wmsRemote()
    const conn = (label: string, m: Record<string, unknown>) => s.send(label, 'POST', '/api/resource/', { body: {
      resource: { cls: 'wmsclient_connection', parent: { id: s.parent }, display_name: s.name('wmsc') }, wmsclient_connection: m } })
    const id = (await conn('create with capcache query', { url: remote.url('ok'), version: '1.1.1', capcache: 'query' })).body?.id
    await s.send('read', 'GET', `/api/resource/${id}`, {}, member('wmsclient_connection'))
    await s.send('clear', 'PUT', `/api/resource/${id}`, { body: { wmsclient_connection: { capcache: 'clear' } } })
    await s.send('read after clear', 'GET', `/api/resource/${id}`, {}, member('wmsclient_connection'))
    await s.send('query again', 'PUT', `/api/resource/${id}`, { body: { wmsclient_connection: { capcache: 'query' } } })
    await s.send('read after query', 'GET', `/api/resource/${id}`, {}, member('wmsclient_connection'))
    await conn('capcache "maybe"', { url: remote.url('ok'), version: '1.1.1', capcache: 'maybe' })
    await conn('version 2.0.0', { url: remote.url('ok'), version: '2.0.0' })
    await conn('remote answers an exception', { url: remote.url('exception'), version: '1.1.1', capcache: 'query' })
    await conn('remote answers HTML', { url: remote.url('html'), version: '1.1.1', capcache: 'query' })
    await conn('remote refuses the login', { url: remote.url('auth'), version: '1.1.1', capcache: 'query' })
    const layer = (await s.send('layer of it', 'POST', '/api/resource/', { body: {
      resource: { cls: 'wmsclient_layer', parent: { id: s.parent }, display_name: s.name('wmsl') },
      wmsclient_layer: { connection: { id }, wmslayers: 'roads', imgformat: 'image/png', srs: { id: 3857 }, remote_srs: { id: 3857 } } } })).body?.id
    await s.send('read the layer', 'GET', `/api/resource/${layer}`, {}, member('wmsclient_layer'))
  } },
]
