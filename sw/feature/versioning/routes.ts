/**
 * @module feature/versioning/routes
 * The changes feed and the versions of a versioned layer (reference §12), as QGIS's NextGIS
 * Connect reads them: `changes/check` (204 when nothing changed, else a summary with the
 * absolute `fetch` URL), `changes/fetch` (pages of at most 100 features' operations, each
 * ending with `{"action": "continue", "url": …}`, then `[]`), `version/` and `version/{vid}`.
 */
import { json } from '../../core/http.ts'
import { invalidParameter, parameterRequired } from '../../core/error.ts'
import { onPath, type RequestContext, type Routes } from '../../core/routes.ts'
import { lastValue, queryBool, queryInt } from '../../core/validate.ts'
import { getUser } from '../../auth/service.ts'
import type { FeatureVariables } from '../env.ts'
import { layerOf } from '../layer.ts'
import type { HistoryRead, VersionRecord } from '../history-types.ts'
import { epochRequired, invalidRange } from './errors.ts'
import { checkEpoch, checkVersion, requireVersioning } from './params.ts'
import { decodeCursor, encodeCursor, EXTENSIONS, type ChangesCursor } from './cursor.ts'

type Ctx = RequestContext<FeatureVariables>

/** Features per page of the feed, as the original. */
const PAGE_FIDS = 100
/** Consecutive versions of one user this close together form one group (`group=true`). */
const GROUP_GAP_MS = 120_000

const paramsOf = (c: Ctx) => new URL(c.req.url).searchParams

function requiredInt(params: URLSearchParams, name: string, min = 0): number {
  const v = queryInt(params, name, { min })
  if (v === undefined) throw parameterRequired(name)
  return v
}

/** The absolute URL of a page of the feed (clients join URLs; absolute ones always work). */
function fetchUrl(c: Ctx, epoch: number, initial: number, target: number, cursor: ChangesCursor): string {
  const url = new URL(`/api/resource/${c.req.param('id')}/feature/changes/fetch`, c.req.url)
  url.search = new URLSearchParams({ epoch: String(epoch), initial: String(initial), target: String(target),
    cursor: encodeCursor(cursor) }).toString()
  return url.href
}

function extensionsOf(params: URLSearchParams): string[] {
  const raw = lastValue(params, 'extensions')
  const list = raw ? raw.split(',').filter(Boolean) : []
  for (const e of list) {
    if (!(EXTENSIONS as readonly string[]).includes(e)) throw invalidParameter('extensions', `Invalid value '${e}'; expected one of ${EXTENSIONS.join(', ')}.`)
  }
  return list
}

/** Versions `vmin..vmax` as one item of the version listing. */
async function versionItem(tx: HistoryRead, first: VersionRecord, last: VersionRecord, grouped: boolean) {
  const [lo, hi] = first.id <= last.id ? [first, last] : [last, first]
  const user = first.userId === null ? null : { id: first.userId }
  const feature = await tx.summary(lo.id - 1, hi.id)
  // `type` is the original's tag of the item's kind (msgspec's tagged union), first as there.
  return grouped && lo !== hi
    ? { type: 'group', id: [lo.id, hi.id], tstamp: [lo.tstamp, hi.tstamp], user, feature }
    : { type: 'version', id: lo.id, tstamp: lo.tstamp, user, feature }
}

export function mountVersioning(routes: Routes<FeatureVariables>): void {
  routes.add('feature_layer.changes_check', '/api/resource/{id}/feature/changes/check', 'GET', onPath('data', 'read'), async (c) => {
    const params = paramsOf(c)
    const layer = await layerOf(c)
    const extensions = extensionsOf(params)
    const initial = queryInt(params, 'initial', { min: 0 }) ?? 0
    const target = queryInt(params, 'target', { min: 0 })
    const epochParam = queryInt(params, 'epoch', { min: 1 })
    const { meta } = layer
    const out = await layer.read(async (tx) => {
      const [h, state] = await requireVersioning(tx.history)
      let epoch = state.epoch
      if (epochParam !== undefined) {
        checkEpoch(state, epochParam)
        checkVersion(state, initial, true)
      } else if (initial !== 0) {
        throw epochRequired()
      } else {
        epoch = state.epoch
      }
      const to = target ? checkVersion(state, target) : state.latest
      if (initial === to) return undefined
      if (initial >= to) throw invalidRange()
      return { epoch, initial, target: to, tstamp: (await h.versionRecord(to))!.tstamp }
    })
    if (!out) return new Response(null, { status: 204 })
    const fields = meta.fields.map((f) => ({ id: f.id, keyname: f.keyname, datatype: f.datatype }))
    return json({ ...out, geometry_type: meta.geometryType, srs: { id: meta.srs }, fields,
      fetch: fetchUrl(c, out.epoch, out.initial, out.target, { fields: fields.map((f) => f.id), extensions, fidLast: null }) })
  })

  routes.add('feature_layer.changes_fetch', '/api/resource/{id}/feature/changes/fetch', 'GET', onPath('data', 'read'), async (c) => {
    const params = paramsOf(c)
    const layer = await layerOf(c)
    const epoch = requiredInt(params, 'epoch', 1)
    const initial = requiredInt(params, 'initial')
    const target = requiredInt(params, 'target')
    const rawCursor = lastValue(params, 'cursor')
    if (rawCursor === undefined) throw parameterRequired('cursor')
    const cursor = decodeCursor(rawCursor)
    return json(await layer.read(async (tx) => {
      const [h, state] = await requireVersioning(tx.history)
      checkEpoch(state, epoch)
      checkVersion(state, initial, true)
      checkVersion(state, target)
      if (initial >= target) throw invalidRange()
      const fids = await h.changedFids(initial, target, cursor.fidLast, PAGE_FIDS)
      if (!fids.length) return []
      const fidMax = fids[fids.length - 1]!
      const ops: unknown[] = await h.changes({ initial, target, fidMin: fids[0]!, fidMax, extensions: cursor.extensions })
      ops.push({ action: 'continue', url: fetchUrl(c, epoch, initial, target, { ...cursor, fidLast: fidMax }) })
      return ops
    }))
  })

  routes.add('feature_layer.version.collection', '/api/resource/{id}/feature/version/', 'GET', onPath('data', 'read'), async (c) => {
    const params = paramsOf(c)
    const layer = await layerOf(c)
    const epoch = requiredInt(params, 'epoch', 1)
    const order = lastValue(params, 'order')
    if (order === undefined) throw parameterRequired('order')
    if (order !== 'asc' && order !== 'desc') throw invalidParameter('order', `Invalid value '${order}'; expected asc or desc.`)
    const group = queryBool(params, 'group', false)
    const limit = queryInt(params, 'limit', { min: 1 }) ?? 50
    if (limit > 500) throw invalidParameter('limit', 'Value must be <= 500.')
    const cursorRaw = lastValue(params, 'cursor')
    if (cursorRaw !== undefined && !/^[0-9]+$/.test(cursorRaw)) throw invalidParameter('cursor', 'Invalid cursor.')
    const tstampGe = lastValue(params, 'tstamp_ge'), tstampLt = lastValue(params, 'tstamp_lt')
    return json(await layer.read(async (tx) => {
      const [h, state] = await requireVersioning(tx.history)
      checkEpoch(state, epoch)
      const items: Awaited<ReturnType<typeof versionItem>>[] = []
      let cursor = cursorRaw === undefined ? undefined : Number(cursorRaw)
      let head: VersionRecord | undefined, tail: VersionRecord | undefined
      // Versions are read in pages; groups may span pages.
      while (items.length < limit) {
        const page = await h.versions({ order, cursor, limit: 50, tstampGe, tstampLt })
        for (const v of page) {
          const joins = group && tail && v.userId === tail.userId && Math.abs(Date.parse(`${v.tstamp}Z`) - Date.parse(`${tail.tstamp}Z`)) <= GROUP_GAP_MS
          if (joins) { tail = v; continue }
          if (head && tail) items.push(await versionItem(h, head, tail, group))
          head = tail = v
          if (items.length === limit) break
        }
        if (page.length < 50 || items.length === limit) break
        cursor = page[page.length - 1]!.id
      }
      if (head && tail && items.length < limit) items.push(await versionItem(h, head, tail, group))
      const last = items[items.length - 1]
      const next = items.length === limit && last
        ? (Array.isArray(last.id) ? (order === 'asc' ? last.id[1] : last.id[0]) : last.id) : null
      return { cursor: next === null ? null : String(next), items }
    }))
  })

  routes.add('feature_layer.version.item', '/api/resource/{id}/feature/version/{vid}', 'GET', onPath('data', 'read'), async (c) => {
    const layer = await layerOf(c)
    const vid = Number(c.req.param('vid'))
    const v = await layer.read(async (tx) => {
      const [h, state] = await requireVersioning(tx.history)
      return h.versionRecord(checkVersion(state, vid))
    })
    const user = v!.userId === null ? undefined
      : await getUser(c.get('services').data, v!.userId!)
    return json({ id: v!.id, tstamp: v!.tstamp,
      user: user ? { id: user.id, keyname: user.keyname, display_name: user.displayName } : null })
  })
}
