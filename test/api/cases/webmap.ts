/**
 * Web maps (issue 25; reference ngw-services §1, §6.1–6.2): the `webmap` and `basemap_webmap`
 * members with every field, the deprecated extent scalars, validation, who sees which layer,
 * deleting a style a map uses, annotations with their owner rules, `display_config`, the map's
 * extent, basemap layers (from a URL or from this server's catalogue), and the fields ngw-kit's
 * and NextGIS Connect's web-map readers take.
 */
import type { Api, ApiCase, Auth, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { addFeatures, createLayer } from './feature.ts'
import { createUser, rule } from './permissions.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const NOT_FOUND = 'nextgisweb.resource.exception.ResourceNotFound'
const DENIED = 'nextgisweb.core.exception.InsufficientPermissions'
const FORBIDDEN = 'nextgisweb.core.exception.ForbiddenError'

type Rule = ReturnType<typeof rule>

async function create(api: Api, expect: Expect, cls: string, parent: number, members: Record<string, unknown> = {}, permissions: Rule[] = []) {
  const res = await api.request('POST', '/api/resource/', { body: { resource: { cls, parent: { id: parent }, display_name: uniq(cls), permissions }, ...members } })
  expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined })
  return res.body.id as number
}

/** A point layer (with `points` in EPSG:3857, if any) and its default style. */
async function styledLayer(api: Api, expect: Expect, points: string[] = [], permissions: Rule[] = []) {
  const layer = await createLayer(api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }])
  if (permissions.length) expect((await api.request('PUT', `/api/resource/${layer}`, { body: { resource: { permissions } } })).status).toBe(200)
  if (points.length) await addFeatures(api, expect, layer, points.map((geom) => ({ geom, fields: { name: 'p' } })))
  const style = await create(api, expect, 'engine_style', layer)
  return { layer, style }
}

const layerItem = (style: number, name: string, extra: Record<string, unknown> = {}) =>
  ({ item_type: 'layer', display_name: name, layer_style_id: style, layer_adapter: 'image', ...extra })

const webmapOf = async (api: Api, id: number, auth?: Auth) =>
  (await api.request('GET', `/api/resource/${id}`, { auth })).body.webmap

/** PUTs `body` to `id`, expects the error, and that the web map reads as before. */
async function refused(api: Api, expect: Expect, id: number, body: Record<string, unknown>, status = 422, exception = VALIDATION) {
  const before = (await api.request('GET', `/api/resource/${id}`)).body
  const res = await api.request('PUT', `/api/resource/${id}`, { body })
  expectError(expect, res, status, exception)
  expect((await api.request('GET', `/api/resource/${id}`)).body).toEqual(before)
  return res.body
}

const DEFAULTS = {
  initial_extent: [-180, -90, 180, 90], constraining_extent: null, title: null, draw_order_enabled: null, editable: true,
  annotation_enabled: false, annotation_default: 'no', legend_symbols: null, measure_srs: null, bookmark_resource: null,
  root_item: { item_type: 'root', children: [] },
  extent_left: -180, extent_right: 180, extent_bottom: -90, extent_top: 90,
  extent_const_left: null, extent_const_right: null, extent_const_bottom: null, extent_const_top: null, options: {},
}

export const webmapCases: ApiCase[] = [
  {
    name: 'webmap: an empty web map answers the original\'s defaults; every field of the member round-trips, keys in the original\'s order',
    async run(api, expect) {
      const empty = await create(api, expect, 'webmap', 0)
      const res = await api.request('GET', `/api/resource/${empty}`)
      expect(res.body.resource.cls).toBe('webmap')
      expect(res.body.resource.scopes).toEqual(['resource', 'webmap'])
      expect(Object.keys(res.body.webmap)).toEqual(Object.keys(DEFAULTS))
      expect(res.body.webmap).toEqual(DEFAULTS)
      expect(res.body.basemap_webmap).toEqual({ basemaps: [], background_color: null, disable: false })

      const a = await styledLayer(api, expect)
      const b = await styledLayer(api, expect)
      const webmap = {
        initial_extent: [10, 20, 30, 40], constraining_extent: [0, 10, 40, 50], title: 'Roads and rivers', draw_order_enabled: true,
        editable: false, annotation_enabled: true, annotation_default: 'messages', legend_symbols: 'expand', measure_srs: { id: 4326 },
        bookmark_resource: { id: a.layer }, options: { 'webmap.identification_geometry': true, 'webmap.hmux': false },
        root_item: { item_type: 'root', children: [
          { item_type: 'group', display_name: 'Transport', group_expanded: true, group_enabled: false, group_exclusive: false, children: [
            layerItem(a.style, 'Roads', { layer_enabled: true, layer_identifiable: false, layer_transparency: 40, layer_min_scale_denom: 100000,
              layer_max_scale_denom: 5000, legend_symbols: 'collapse', draw_order_position: 2 }),
          ] },
          layerItem(b.style, 'Rivers', { layer_adapter: 'tile' }),
        ] },
      }
      const id = await create(api, expect, 'webmap', 0, { webmap })
      const read = await webmapOf(api, id)
      expect(Object.keys(read)).toEqual(Object.keys(DEFAULTS))
      expect(read).toEqual({
        ...webmap, bookmark_resource: { id: a.layer, parent: { id: 0 } },
        extent_left: 10, extent_bottom: 20, extent_right: 30, extent_top: 40,
        extent_const_left: 0, extent_const_bottom: 10, extent_const_right: 40, extent_const_top: 50,
        root_item: { item_type: 'root', children: [
          { item_type: 'group', display_name: 'Transport', group_expanded: true, group_enabled: false, group_exclusive: false, children: [
            { item_type: 'layer', display_name: 'Roads', layer_style_id: a.style, style_parent_id: a.layer, layer_adapter: 'image',
              layer_enabled: true, layer_identifiable: false, layer_min_scale_denom: 100000, layer_max_scale_denom: 5000,
              legend_symbols: 'collapse', layer_opacity: 0.6, draw_order_position: 2, layer_transparency: 40 },
          ] },
          // Layer defaults (§1.3): disabled, identifiable, the rest null.
          { item_type: 'layer', display_name: 'Rivers', layer_style_id: b.style, style_parent_id: b.layer, layer_adapter: 'tile',
            layer_enabled: false, layer_identifiable: true, layer_min_scale_denom: null, layer_max_scale_denom: null,
            legend_symbols: null, layer_opacity: null, draw_order_position: null, layer_transparency: null },
        ] },
      })
      // Putting back what was read changes nothing.
      expect((await api.request('PUT', `/api/resource/${id}`, { body: { webmap: read } })).status).toBe(200)
      expect(await webmapOf(api, id)).toEqual(read)
      // A change sends only what changes; root_item replaces the whole tree.
      expect((await api.request('PUT', `/api/resource/${id}`, { body: { webmap: { title: null, root_item: { item_type: 'root', children: [
        layerItem(b.style, 'Only rivers')] } } } })).status).toBe(200)
      const after = await webmapOf(api, id)
      expect(after.title).toBeNull()
      expect(after.legend_symbols).toBe('expand')
      expect(after.root_item.children.map((c: { display_name: string }) => c.display_name)).toEqual(['Only rivers'])
    },
  },
  {
    name: 'webmap: layer_opacity is stored as layer_transparency (opacity wins when both are sent); an exclusive group keeps its first enabled child on',
    async run(api, expect) {
      const a = await styledLayer(api, expect)
      const id = await create(api, expect, 'webmap', 0, { webmap: { root_item: { item_type: 'root', children: [
        layerItem(a.style, 'Opacity', { layer_opacity: 0.25 }),
        layerItem(a.style, 'Both', { layer_opacity: 0.7, layer_transparency: 90 }),
        { item_type: 'group', display_name: 'One of', group_exclusive: true, children: [
          layerItem(a.style, 'Off', { layer_enabled: false }),
          layerItem(a.style, 'First on', { layer_enabled: true }),
          layerItem(a.style, 'Second on', { layer_enabled: true }),
          { item_type: 'group', display_name: 'Inner on', children: [] },
        ] },
      ] } } })
      const [opacity, both, group] = (await webmapOf(api, id)).root_item.children
      expect([opacity.layer_opacity, opacity.layer_transparency]).toEqual([0.25, 75])
      expect([both.layer_opacity, both.layer_transparency]).toEqual([0.7, 30])
      expect(group.children.map((c: { layer_enabled?: boolean; group_enabled?: boolean }) => c.layer_enabled ?? c.group_enabled))
        .toEqual([false, true, false, false])
    },
  },
  {
    name: 'webmap: the deprecated extent_* scalars are answered beside the arrays, accepted alone, win over the arrays, and never read null',
    async run(api, expect) {
      const alone = await create(api, expect, 'webmap', 0, { webmap: { extent_left: 20, extent_bottom: 40, extent_right: 60, extent_top: 70,
        extent_const_left: 10, extent_const_bottom: 30, extent_const_right: 70, extent_const_top: 80 } })
      expect(await webmapOf(api, alone)).toMatchObject({ initial_extent: [20, 40, 60, 70], constraining_extent: [10, 30, 70, 80],
        extent_left: 20, extent_bottom: 40, extent_right: 60, extent_top: 70, extent_const_left: 10, extent_const_top: 80 })
      const both = await create(api, expect, 'webmap', 0, { webmap: { initial_extent: [1, 2, 3, 4], extent_left: -5 } })
      expect(await webmapOf(api, both)).toMatchObject({ initial_extent: [-5, 2, 3, 4], extent_left: -5, extent_top: 4 })
      // Unset: the arrays read null, the scalars the world's sides (NextGIS Connect takes their min() before checking for None).
      expect((await api.request('PUT', `/api/resource/${both}`, { body: { webmap: { initial_extent: null, constraining_extent: null } } })).status).toBe(200)
      expect(await webmapOf(api, both)).toMatchObject({ initial_extent: null, constraining_extent: null,
        extent_left: -180, extent_bottom: -90, extent_right: 180, extent_top: 90, extent_const_left: null })
      // Out of range, either spelling: 422 and nothing changes.
      await refused(api, expect, alone, { webmap: { initial_extent: [-200, 0, 10, 10] } })
      await refused(api, expect, alone, { webmap: { extent_top: 91 } })
      await refused(api, expect, alone, { webmap: { constraining_extent: [0, 0, 10] } })
      await refused(api, expect, alone, { webmap: { extent_const_left: 'west' } })
    },
  },
  {
    name: 'webmap: bad shapes and references are 422 naming the place, and change nothing',
    async run(api, expect) {
      const a = await styledLayer(api, expect)
      const id = await create(api, expect, 'webmap', 0, { webmap: { root_item: { item_type: 'root', children: [layerItem(a.style, 'Kept')] } } })
      const tree = (children: unknown[]) => ({ webmap: { root_item: { item_type: 'root', children } } })
      const bad: Array<[unknown, string]> = [
        [tree([{ item_type: 'folder', display_name: 'x', children: [] }]), 'item_type'],
        [tree([{ item_type: 'group', display_name: 'x', children: {} }]), 'children'],
        [tree([{ item_type: 'group', display_name: 'x', children: null }]), 'children'],
        [tree([{ item_type: 'group', children: [] }]), 'display_name'],
        [tree([layerItem(a.style, 'x', { layer_style_id: String(a.style) })]), 'layer_style_id'],
        [tree([layerItem(a.style, 'x', { layer_style_id: 1.5 })]), 'layer_style_id'],
        [tree([{ item_type: 'layer', display_name: 'x', layer_adapter: 'image' }]), 'layer_style_id'],
        [tree([layerItem(a.style, 'x', { layer_adapter: 'wms' })]), 'layer_adapter'],
        [tree([layerItem(a.style, 'x', { layer_enabled: 'yes' })]), 'layer_enabled'],
        [tree([layerItem(a.style, 'x', { layer_transparency: 101 })]), 'layer_transparency'],
        [tree([layerItem(a.style, 'x', { layer_opacity: 1.5 })]), 'layer_opacity'],
        // min is the zoomed-out limit, the larger number (§1.3).
        [tree([layerItem(a.style, 'x', { layer_min_scale_denom: 1000, layer_max_scale_denom: 50000 })]), 'layer_min_scale_denom'],
        [tree([layerItem(a.style, 'x', { layer_min_scale_denom: -1 })]), 'layer_min_scale_denom'],
        [tree([layerItem(a.style, 'x', { legend_symbols: 'show' })]), 'legend_symbols'],
        [tree([layerItem(a.style, 'x', { colour: 'red' })]), 'colour'],
        [{ webmap: { root_item: { item_type: 'group', children: [] } } }, 'item_type'],
        [{ webmap: { annotation_default: 'maybe' } }, 'annotation_default'],
        [{ webmap: { legend_symbols: 'show' } }, 'legend_symbols'],
        [{ webmap: { options: { 'webmap.nope': true } } }, 'webmap.nope'],
        [{ webmap: { options: { 'webmap.hmux': null } } }, 'webmap.hmux'],
        [{ webmap: { measure_srs: { id: 999999 } } }, '999999'],
        [{ webmap: { bookmark_resource: { id: 99999999 } } }, '99999999'],
        [{ webmap: { editable: null } }, 'editable'],
        [{ webmap: { zoom: 3 } }, 'zoom'],
      ]
      for (const [body, names] of bad) {
        const err = await refused(api, expect, id, body as Record<string, unknown>)
        expect(err.message).toContain(names)
      }
      // A layer whose style does not exist, or is no style: 422 naming the item (the original: 500, or accepted).
      const missing = await refused(api, expect, id, tree([layerItem(a.style, 'Kept'), { item_type: 'group', display_name: 'G',
        children: [layerItem(99999999, 'Ghost roads')] }]))
      expect(missing.message).toContain("Layer item 'Ghost roads'")
      expect(missing.message).toContain('$.webmap.root_item.children[1].children[0]')
      expect(missing.message).toContain('99999999')
      const notStyle = await refused(api, expect, id, tree([layerItem(a.layer, 'The layer itself')]))
      expect(notStyle.message).toContain("Layer item 'The layer itself'")
      expect(notStyle.message).toContain('is not a style')
      // Not under a layer or another web map: only in a resource group.
      const under = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'webmap', parent: { id: a.layer }, display_name: uniq('W') } } })
      expectError(expect, under, 422, 'nextgisweb.resource.exception.HierarchyError')
    },
  },
  {
    name: 'webmap permissions: a reader without data.read on a layer\'s style does not see its item; a writer without it gets 422 naming it',
    async run(api, expect) {
      const u = await createUser(api, expect)
      const open = await styledLayer(api, expect, ['POINT(0 0)'], [rule(u.id, 'resource', 'read'), rule(u.id, 'data', 'read')])
      const secret = await styledLayer(api, expect, ['POINT(2000000 2000000)'])
      const id = await create(api, expect, 'webmap', 0, { webmap: { root_item: { item_type: 'root', children: [
        layerItem(open.style, 'Open', { layer_enabled: true }),
        { item_type: 'group', display_name: 'Secret group', children: [layerItem(secret.style, 'Secret', { layer_enabled: true })] },
      ] } } }, [rule(u.id, 'resource', 'read', false), rule(u.id, 'resource', 'update', false)])
      // The reader: the secret layer is left out (the original answers 500 here).
      const seen = await webmapOf(api, id, u.auth)
      expect(seen.root_item).toEqual({ item_type: 'root', children: [
        expect.objectContaining({ display_name: 'Open' }), expect.objectContaining({ display_name: 'Secret group', children: [] })] })
      expect(JSON.stringify(seen)).not.toContain(`"layer_style_id":${secret.style}`)
      const config = (await api.request('GET', `/api/resource/${id}/webmap/display_config`, { auth: u.auth })).body
      expect(config.rootItem.children.map((c: { label: string }) => c.label)).toEqual(['Open'])
      const extent = (await api.request('GET', `/api/resource/${id}/webmap/extent`, { auth: u.auth })).body
      expect(Object.keys(extent)).toEqual(['minLon', 'maxLon', 'minLat', 'maxLat'])
      for (const v of Object.values(extent)) expect(v).toBeCloseTo(0, 6)
      // The administrator sees both.
      expect((await webmapOf(api, id)).root_item.children[1].children).toHaveLength(1)
      expect((await api.request('GET', `/api/resource/${id}/webmap/extent`)).body.maxLon).toBeGreaterThan(17)
      // The writer may not add the layer it cannot read…
      const add = await api.request('PUT', `/api/resource/${id}`, { auth: u.auth, body: { webmap: { root_item: { item_type: 'root', children: [
        layerItem(open.style, 'Open'), layerItem(secret.style, 'Peek')] } } } })
      expectError(expect, add, 422, VALIDATION)
      expect(add.body.message).toContain("Layer item 'Peek'")
      // …nor silently drop it by writing back the tree it was shown.
      const drop = await api.request('PUT', `/api/resource/${id}`, { auth: u.auth, body: { webmap: { root_item: seen.root_item } } })
      expectError(expect, drop, 422, VALIDATION)
      expect(drop.body.message).toContain('you may not read')
      expect((await webmapOf(api, id)).root_item.children[1].children).toHaveLength(1)
      // Settings other than the tree it may change; a guest reads nothing.
      expect((await api.request('PUT', `/api/resource/${id}`, { auth: u.auth, body: { webmap: { title: 'Mine' } } })).status).toBe(200)
      expectError(expect, await api.request('GET', `/api/resource/${id}/webmap/display_config`, { auth: 'guest' }), 403, DENIED)
    },
  },
  {
    name: 'webmap: deleting a style a web map uses takes its items out of every answer; the map stays readable and writable (the original deletes the items)',
    async run(api, expect) {
      const a = await styledLayer(api, expect)
      const b = await styledLayer(api, expect)
      const id = await create(api, expect, 'webmap', 0, { webmap: { root_item: { item_type: 'root', children: [
        layerItem(a.style, 'Stays', { layer_enabled: true }), layerItem(b.style, 'Goes', { layer_enabled: true })] } } })
      expect((await api.request('DELETE', `/api/resource/${b.style}`)).status).toBe(200)
      const read = await webmapOf(api, id)
      expect(read.root_item.children.map((c: { display_name: string }) => c.display_name)).toEqual(['Stays'])
      const config = await api.request('GET', `/api/resource/${id}/webmap/display_config`)
      expect(config.status).toBe(200)
      expect(config.body.rootItem.children.map((c: { label: string }) => c.label)).toEqual(['Stays'])
      expect((await api.request('PUT', `/api/resource/${id}`, { body: { webmap: { root_item: read.root_item } } })).status).toBe(200)
      // Deleting the whole layer (style included) is the same; so is deleting the web map itself.
      expect((await api.request('DELETE', `/api/resource/${a.layer}`)).status).toBe(200)
      expect((await webmapOf(api, id)).root_item.children).toEqual([])
      expect((await api.request('DELETE', `/api/resource/${id}`)).status).toBe(200)
      expectError(expect, await api.request('GET', `/api/resource/${id}/webmap/display_config`), 404, NOT_FOUND)
    },
  },
  {
    name: 'webmap annotations: create, list, read, change, delete, with owner rules the original lacks (private ones hidden, only author or manager changes)',
    async run(api, expect) {
      const author = await createUser(api, expect)
      const other = await createUser(api, expect)
      const manager = await createUser(api, expect)
      const reader = await createUser(api, expect)
      const rules = [
        ...[author, other, manager, reader].map((u) => rule(u.id, 'resource', 'read', false)),
        rule(author.id, 'webmap', 'annotation_write', false), rule(author.id, 'webmap', 'annotation_read', false),
        rule(other.id, 'webmap', 'annotation_write', false), rule(other.id, 'webmap', 'annotation_read', false),
        // annotation_manage counts only with annotation_write (§1.1).
        rule(manager.id, 'webmap', 'annotation_manage', false), rule(manager.id, 'webmap', 'annotation_write', false),
        rule(manager.id, 'webmap', 'annotation_read', false),
        rule(reader.id, 'webmap', 'annotation_read', false),
      ]
      const id = await create(api, expect, 'webmap', 0, { webmap: { annotation_enabled: true } }, rules)
      const base = `/api/resource/${id}/annotation/`
      const post = (auth: Auth, body: unknown) => api.request('POST', base, { auth, body })
      const pub = await post(author.auth, { geom: 'POINT(100 200)', public: true, description: 'Bridge out', style: { circle: { fill: { color: '#f00' } } } })
      expect(pub.status).toBe(200)
      expect(pub.body).toEqual({ id: expect.any(Number) })
      const priv = await post(author.auth, { geom: 'LINESTRING(0 0, 10 10)', public: false })
      expect(priv.status).toBe(200)
      // The author sees both and owns both (the original answers own: false for a public one).
      const mine = (await api.request('GET', base, { auth: author.auth })).body
      expect(mine).toEqual([
        { id: pub.body.id, geom: 'POINT(100 200)', public: true, own: true, description: 'Bridge out', style: { circle: { fill: { color: '#f00' } } } },
        { id: priv.body.id, geom: 'LINESTRING(0 0,10 10)', public: false, own: true, description: null, style: null },
      ])
      // Another writer and a reader see the public one only; the private one is a 404 to them.
      for (const u of [other, reader]) {
        expect((await api.request('GET', base, { auth: u.auth })).body.map((a: { id: number }) => a.id)).toEqual([pub.body.id])
        expect((await api.request('GET', `${base}${priv.body.id}`, { auth: u.auth })).status).toBe(404)
      }
      expect((await api.request('GET', `${base}${pub.body.id}`, { auth: other.auth })).body).toMatchObject({ own: false, public: true })
      // Only the author or a manager changes or deletes, public ones included.
      expectError(expect, await api.request('PUT', `${base}${pub.body.id}`, { auth: other.auth, body: { description: 'vandal' } }), 403, FORBIDDEN)
      expectError(expect, await api.request('DELETE', `${base}${pub.body.id}`, { auth: other.auth }), 403, FORBIDDEN)
      expectError(expect, await api.request('POST', base, { auth: reader.auth, body: { geom: 'POINT(1 1)', public: true } }), 403, DENIED)
      expectError(expect, await api.request('GET', base, { auth: 'guest' }), 403, DENIED)
      // A PUT keeps what it does not send (the original clears description and style); public cannot change.
      const put = await api.request('PUT', `${base}${pub.body.id}`, { auth: author.auth, body: { geom: 'POINT(5 6)' } })
      expect(put.body).toEqual({ id: pub.body.id })
      expect((await api.request('GET', `${base}${pub.body.id}`, { auth: author.auth })).body)
        .toMatchObject({ geom: 'POINT(5 6)', description: 'Bridge out', style: { circle: { fill: { color: '#f00' } } } })
      expectError(expect, await api.request('PUT', `${base}${pub.body.id}`, { auth: author.auth, body: { public: false } }), 422, VALIDATION)
      // The manager sees every one, with the author of private ones, and may delete any.
      const all = (await api.request('GET', base, { auth: manager.auth })).body
      expect(all.map((a: { id: number }) => a.id)).toEqual([pub.body.id, priv.body.id])
      expect(all[1]).toMatchObject({ own: false, user_id: author.id, user: author.keyname })
      expect(all[0].user_id).toBeUndefined()
      expect((await api.request('DELETE', `${base}${priv.body.id}`, { auth: manager.auth })).body).toEqual({})
      expect((await api.request('GET', `${base}${priv.body.id}`, { auth: author.auth })).status).toBe(404)
      // Bad input: 422 (the original: 500); an unknown id: 404; not a web map: 404.
      expectError(expect, await post(author.auth, { geom: 'POINT(1)', public: true }), 422, VALIDATION)
      // geom and public are required, in the original's words (checked against NGW 5.4).
      expect((await post(author.auth, { public: true })).body.message).toBe('Object missing required field `geom`')
      expect((await post(author.auth, { geom: 'POINT(1 1)' })).body.message).toBe('Object missing required field `public`')
      expectError(expect, await post(author.auth, { geom: 'POINT(1 1)', style: 'red' }), 422, VALIDATION)
      expect((await api.request('GET', `${base}99999`, { auth: author.auth })).status).toBe(404)
      expect((await api.request('GET', base, { auth: author.auth })).body.map((a: { id: number }) => a.id)).toEqual([pub.body.id])
      const group = await create(api, expect, 'resource_group', 0)
      expectError(expect, await api.request('GET', `/api/resource/${group}/annotation/`), 404, NOT_FOUND)
      expectError(expect, await api.request('POST', `/api/resource/${group}/annotation/`, { body: { geom: 'POINT(1 1)' } }), 404, NOT_FOUND)
      // The display config tells each person what they may do.
      const scope = async (auth: Auth) => (await api.request('GET', `/api/resource/${id}/webmap/display_config`, { auth })).body.annotations
      expect(await scope(reader.auth)).toEqual({ enabled: true, default: 'no', scope: { read: true, write: false, manage: false } })
      expect((await scope(manager.auth)).scope).toEqual({ read: true, write: true, manage: true })
    },
  },
  {
    name: 'webmap display_config and extent: the original\'s shape, legends, identification, empty groups dropped, options merged over defaults',
    async run(api, expect) {
      const a = await styledLayer(api, expect, ['POINT(0 0)', 'POINT(1113194.9079327357 1118889.9748579597)'])
      const id = await create(api, expect, 'webmap', 0, { webmap: { title: 'Shown', legend_symbols: 'expand', draw_order_enabled: true,
        options: { 'webmap.hmux': true }, root_item: { item_type: 'root', children: [
          { item_type: 'group', display_name: 'Empty', group_expanded: true, children: [] },
          { item_type: 'group', display_name: 'G', group_expanded: true, children: [
            layerItem(a.style, 'Points', { layer_enabled: true, layer_transparency: 50, legend_symbols: 'disable' }),
            layerItem(a.style, 'Not identifiable', { layer_identifiable: false, layer_adapter: 'tile', layer_min_scale_denom: 1e6 }),
          ] },
        ] } } })
      expect((await api.request('PUT', `/api/resource/${id}`, { body: { resource: { description: 'Where the points are' } } })).status).toBe(200)
      const c = (await api.request('GET', `/api/resource/${id}/webmap/display_config`)).body
      expect(c).toMatchObject({ webmapId: id, webmapTitle: 'Shown', webmapDescription: 'Where the points are', initialExtent: [-180, -90, 180, 90], constrainingExtent: null,
        drawOrderEnabled: true, webmapEditable: true, webmapLegendVisible: 'expand', measureSrsId: null, bookmarkLayerId: null,
        options: { 'webmap.identification_attributes': true, 'webmap.identification_geometry': false, 'webmap.hmux': true },
        webmapPlugin: { '@nextgisweb/basemap/plugin/base-map': { basemaps: [], disable: false, background_color: null } } })
      const [g] = c.rootItem.children
      expect(c.rootItem.children).toHaveLength(1)
      expect(g).toMatchObject({ type: 'group', label: 'G', expanded: true })
      const [points, plain] = g.children
      expect(points).toEqual({ id: points.id, key: points.id, type: 'layer', label: 'Points', title: 'Points', layerId: a.layer, styleId: a.style,
        visibility: true, identifiable: true, filterable: true, opacity: 0.5, minScaleDenom: null, maxScaleDenom: null, drawOrderPosition: null,
        legendInfo: { visible: 'disable' }, identification: { mode: 'feature_layer', resource: { id: a.layer } },
        adapter: '@nextgisweb/webmap/image-adapter', plugin: {} })
      expect(plain).toMatchObject({ legendInfo: { visible: 'expand', has_legend: true }, identification: null, minScaleDenom: 1e6,
        adapter: '@nextgisweb/webmap/tile-adapter' })
      expect(c.checkedItems).toEqual([points.id])
      expect(c.expandedItems).toEqual([g.id])
      const e = (await api.request('GET', `/api/resource/${id}/webmap/extent`)).body
      expect(e.minLon).toBeCloseTo(0, 6)
      expect(e.maxLon).toBeCloseTo(10, 6)
      expect(e.maxLat).toBeCloseTo(10, 6)
      // A map without layers has no extent; a resource that is no web map is a 404.
      const bare = await create(api, expect, 'webmap', 0)
      const none = await api.request('GET', `/api/resource/${bare}/webmap/extent`)
      expect([none.status, none.body]).toEqual([200, null])
      expectError(expect, await api.request('GET', `/api/resource/${a.layer}/webmap/display_config`), 404, NOT_FOUND)
      const schema = (await api.request('GET', '/api/component/webmap/option/schema', { auth: 'guest' })).body
      expect(Object.keys(schema.options)).toEqual(['webmap.identification_attributes', 'webmap.identification_geometry', 'webmap.hmux'])
      // The original's labels, categories and orders (checked against NGW 5.4).
      expect(schema.options['webmap.hmux']).toEqual({ identity: 'webmap.hmux', label: 'Request multiplexing', category: 'miscellaneous', order: 0, default: false })
      expect(Object.keys(schema.categories)).toEqual(['panel', 'tool', 'identification', 'miscellaneous'])
      expect(schema.categories.identification).toEqual({ identity: 'identification', label: 'Identification', order: -40 })
    },
  },
  {
    name: 'webmap basemaps: basemap_layer from a URL, a QMS JSON text or our catalogue; the web map\'s list with opacity, enabled and order',
    async run(api, expect) {
      const url = 'https://tile.example.org/{z}/{x}/{y}.png'
      const osm = await create(api, expect, 'basemap_layer', 0, { basemap_layer: { url, copyright_text: '© Example', z_min: 0, z_max: 18 } })
      expect((await api.request('GET', `/api/resource/${osm}`)).body.basemap_layer).toEqual({ url, qms: null, copyright_text: '© Example',
        copyright_url: null, z_min: 0, z_max: 18 })
      // From this server's catalogue: entry 2 (OpenTopoMap, TMS) gives its URL (switch resolved), zooms and attribution.
      const topo = await create(api, expect, 'basemap_layer', 0, { basemap_layer: { outpost_catalogue: { id: 2 } } })
      const topoRead = (await api.request('GET', `/api/resource/${topo}`)).body.basemap_layer
      expect(topoRead).toMatchObject({ url: 'https://a.tile.opentopomap.org/{z}/{x}/{y}.png', z_min: 0, z_max: 17,
        copyright_url: 'https://opentopomap.org/about' })
      expect(JSON.parse(topoRead.qms)).toMatchObject({ id: 2, url: topoRead.url, z_min: 0, z_max: 17, epsg: 3857 })
      const basemapBad: Array<[Record<string, unknown>, string]> = [
        [{}, 'url'], [{ url: 'tiles/{z}/{x}/{y}' }, 'url'], [{ url: 'https://x.org/tile.png' }, 'url'], [{ url, qms: '{oops' }, 'qms'],
        [{ url, z_min: 5, z_max: 2 }, 'z_min'], [{ url, z_max: 99 }, 'z_max'], [{ outpost_catalogue: { id: 5 } }, 'wms'],
        [{ outpost_catalogue: { id: 999999 } }, '999999'], [{ url, tiles: 1 }, 'tiles'],
      ]
      for (const [member, word] of basemapBad) {
        const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'basemap_layer', parent: { id: 0 }, display_name: uniq('B') }, basemap_layer: member } })
        expectError(expect, res, 422, VALIDATION)
        expect(res.body.message).toContain(word)
      }
      const lookup = await create(api, expect, 'lookup_table', 0, { lookup_table: { items: {} } })
      const id = await create(api, expect, 'webmap', 0, { basemap_webmap: { background_color: 'a0b1c2', basemaps: [
        { resource_id: topo, display_name: 'Topo', enabled: false, opacity: 0.5, position: 0 },
        { resource_id: osm, display_name: 'Example' },
      ] } })
      const read = (await api.request('GET', `/api/resource/${id}`)).body.basemap_webmap
      expect(read).toEqual({ basemaps: [
        { resource_id: topo, display_name: 'Topo', enabled: false, opacity: 0.5 },
        { resource_id: osm, display_name: 'Example', enabled: true, opacity: null },
      ], background_color: 'a0b1c2', disable: false })
      const plugin = (await api.request('GET', `/api/resource/${id}/webmap/display_config`)).body.webmapPlugin['@nextgisweb/basemap/plugin/base-map']
      expect(plugin.basemaps.map((b: { url: string; position: number }) => [b.url, b.position])).toEqual([[topoRead.url, 0], [url, 1]])
      const bad: unknown[] = [
        { basemaps: [{ resource_id: osm, display_name: 'x', opacity: 0 }] },
        { basemaps: [{ resource_id: osm, display_name: '' }] },
        { basemaps: [{ resource_id: lookup, display_name: 'Not a basemap' }] },
        { basemaps: [{ display_name: 'x' }] },
        { background_color: '#fff' },
        { disable: 'no' },
      ]
      for (const b of bad) await refused(api, expect, id, { basemap_webmap: b })
      // A basemap whose layer is deleted leaves the list.
      expect((await api.request('DELETE', `/api/resource/${osm}`)).status).toBe(200)
      expect((await api.request('GET', `/api/resource/${id}`)).body.basemap_webmap.basemaps.map((b: { resource_id: number }) => b.resource_id)).toEqual([topo])
    },
  },
  {
    name: 'webmap: what ngw-kit\'s web-map adapter and NextGIS Connect read is there, typed as they use it (§6.1, §6.2)',
    async run(api, expect) {
      const a = await styledLayer(api, expect)
      const basemap = await create(api, expect, 'basemap_layer', 0, { basemap_layer: { outpost_catalogue: { id: 1 } } })
      // What NextGIS Connect POSTs: the scalars, image layers with transparency, basemaps with opacity null.
      const id = await create(api, expect, 'webmap', 0, {
        webmap: { extent_left: 30, extent_right: 40, extent_bottom: 50, extent_top: 60, root_item: { item_type: 'root', children: [
          { item_type: 'group', display_name: 'G', group_expanded: true, children: [
            { item_type: 'layer', display_name: 'L', layer_style_id: a.style, layer_adapter: 'image', layer_enabled: true, layer_transparency: 20,
              layer_min_scale_denom: null, layer_max_scale_denom: null, legend_symbols: 'expand' }] }] } },
        basemap_webmap: { basemaps: [{ resource_id: basemap, display_name: 'OSM', enabled: true, opacity: null }] },
      })
      const body = (await api.request('GET', `/api/resource/${id}`)).body
      const w = body.webmap
      // ngw-kit: initial_extent, the scalars (truthy numbers), draw_order_enabled, bookmark_resource.
      expect(w.initial_extent).toEqual([30, 50, 40, 60])
      for (const k of ['extent_left', 'extent_bottom', 'extent_right', 'extent_top']) expect(typeof w[k]).toBe('number')
      expect('draw_order_enabled' in w && 'bookmark_resource' in w && 'constraining_extent' in w).toBe(true)
      const item = w.root_item.children[0].children[0]
      // ngw-kit's NgwWebmapItem reads these; Connect asserts style_parent_id is not null.
      expect(item).toMatchObject({ item_type: 'layer', display_name: 'L', layer_enabled: true, layer_style_id: a.style, style_parent_id: a.layer,
        layer_adapter: 'image', layer_identifiable: true, layer_min_scale_denom: null, layer_max_scale_denom: null, legend_symbols: 'expand',
        draw_order_position: null, layer_transparency: 20 })
      expect(['IMAGE', 'TILE']).toContain(item.layer_adapter.toUpperCase())
      expect(w.root_item.children[0]).toMatchObject({ item_type: 'group', group_expanded: true, group_exclusive: false })
      // Connect's WebMapBaseMap(**item) accepts exactly these keys; ngw-kit fetches the basemap and JSON.parses its qms.
      for (const b of body.basemap_webmap.basemaps) expect(Object.keys(b).sort()).toEqual(['display_name', 'enabled', 'opacity', 'resource_id'])
      const bl = (await api.request('GET', `/api/resource/${basemap}`)).body
      expect(bl.resource.cls).toBe('basemap_layer')
      const qms = JSON.parse(bl.basemap_layer.qms)
      expect(qms).toMatchObject({ url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', z_min: 0, z_max: 19, epsg: 3857 })
      // The layer URLs ngw-kit then builds answer (IMAGE with its extra parameters, TILE).
      const image = await api.request('GET', `/api/component/render/image?resource=${a.style}&extent=-20037508,-20037508,20037508,20037508&size=64,64&timestamp=1&nd=200&service=WMS&transparent=true`)
      expect([image.status, image.headers['content-type']]).toEqual([200, 'image/png'])
      const tile = await api.request('GET', `/api/component/render/tile?z=0&x=0&y=0&resource=${a.style}&nd=200`)
      expect([200, 204]).toContain(tile.status)
    },
  },
]
