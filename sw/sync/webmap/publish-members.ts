/**
 * @module sync/webmap/publish-members
 * The parts of a published map beside its layers and styles: the web map's settings as sent
 * there (and as read back, to put a map back), its basemaps and its annotations.
 */
import { ApiError } from '../../core/error.ts'
import { remoteFailed } from '../errors.ts'
import type { JobEnv } from './job.ts'
import { localTree } from './local-map.ts'
import type { Plan, Published } from './publish-plan.ts'
import type { RemoteWriter } from './publish-remote.ts'
import { layerItems, type Missing } from './remote-map.ts'

/** The `webmap` member's settings copied as they are (the extent scalars are the arrays' other spelling). */
const SETTINGS = ['initial_extent', 'constraining_extent', 'title', 'draw_order_enabled', 'editable', 'annotation_enabled',
  'annotation_default', 'legend_symbols', 'measure_srs', 'options']

/** The settings of the map's `webmap` member `m` to send there (the tree and bookmarks are the caller's). */
export const settingsOf = (m: Record<string, unknown>) => Object.fromEntries(SETTINGS.filter((k) => m?.[k] !== undefined).map((k) => [k, m[k]]))

/** The map's `webmap` member as read there, in the shape it is written back (read-only keys dropped). */
export function oldWebmap(w: Record<string, any>): Record<string, unknown> { // reason: the team's server's member, sent back
  const out: Record<string, unknown> = settingsOf(w)
  out.bookmark_resource = w?.bookmark_resource ? { id: w.bookmark_resource.id } : null
  const styles = [...layerItems(w?.root_item ?? {})].map((i) => Number(i.layer_style_id))
  out.root_item = localTree(w?.root_item ?? {}, new Map(styles.map((s) => [s, s])))
  return out
}

export const pickBasemapSettings = (b: Record<string, unknown> | undefined) =>
  Object.fromEntries(['background_color', 'disable'].filter((k) => b?.[k] !== undefined).map((k) => [k, b![k]]))

/**
 * The map's basemaps there: a basemap whose tiles come from anywhere (an `http(s)` URL) is
 * copied (or its earlier copy changed); one served by this server only (a path here: tiles
 * kept on the device) is skipped, and said.
 */
export async function publishBasemaps(env: JobEnv, plan: Plan, before: Published | undefined, group: number, writer: RemoteWriter, skipped: Missing[]) {
  const items: Record<string, unknown>[] = []
  const made: Record<string, number> = {}
  for (const b of (plan.basemapWebmap?.basemaps ?? []) as { resource_id: number; display_name: string; enabled: boolean; opacity: number | null }[]) {
    const doc = await env.inner.json('GET', `/api/resource/${b.resource_id}`)
    const layer = doc.basemap_layer as Record<string, unknown> | undefined
    if (typeof layer?.url !== 'string' || !/^https?:\/\//i.test(layer.url)) {
      skipped.push({ kind: 'basemap', name: b.display_name, reason: typeof layer?.url === 'string' ? 'its tiles are served by this device only' : 'you may not read it here' })
      continue
    }
    const member = { basemap_layer: Object.fromEntries(['url', 'qms', 'copyright_text', 'copyright_url', 'z_min', 'z_max']
      .filter((k) => layer[k] !== undefined).map((k) => [k, layer[k]])) }
    const kept = before?.basemaps[b.resource_id]
    let there: number
    if (kept !== undefined && (await writer.client.json('GET', `/api/resource/${kept}`, undefined, [403, 404])).status === 200) {
      await writer.send('PUT', `/api/resource/${kept}`, member, `change basemap ${kept}`)
      there = kept
    } else {
      there = await writer.createUnique({ resource: { cls: 'basemap_layer', parent: { id: group }, display_name: String(doc.resource.display_name) }, ...member },
        `create basemap '${doc.resource.display_name}' in group ${group}`)
    }
    made[b.resource_id] = there
    items.push({ resource_id: there, display_name: b.display_name, enabled: b.enabled, ...(b.opacity ? { opacity: b.opacity } : {}) })
  }
  return { items, made }
}

/** The map's annotations the asker sees here, made there (the account there is their author). */
export async function publishAnnotations(env: JobEnv, plan: Plan, webmap: number, writer: RemoteWriter, skipped: Missing[]) {
  const made: number[] = []
  const list = await env.inner.json('GET', `/api/resource/${plan.id}/annotation/`).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 403) return undefined
    throw err
  })
  if (!list) {
    if (plan.webmap.annotation_enabled) skipped.push({ kind: 'layer', name: 'annotations', reason: 'you may not read them here' })
    return { made }
  }
  for (const a of list as { geom: string; public: boolean; description?: string | null; style?: unknown }[]) {
    const res = await writer.send('POST', `/api/resource/${webmap}/annotation/`, { geom: a.geom, public: a.public, description: a.description ?? null,
      ...(a.style !== undefined ? { style: a.style } : {}) }, `add an annotation to web map ${webmap}`)
    const id = Number(res?.id)
    if (!Number.isSafeInteger(id)) throw remoteFailed(writer.client.creds.url, 502, undefined)
    made.push(id)
    writer.madePaths.push(`/api/resource/${webmap}/annotation/${id}`)
  }
  return { made }
}
