/**
 * @module resource/routes
 * `resource.item`, `resource.collection`, `resource.search`, `resource.permission` and
 * `resource.blueprint` (spec §4.1, §4.2; reference §4).
 */
import { json, jsonText, readJsonObject } from '../core/http.ts'
import { PUBLIC, inHandler, onPath, type RequestContext, type Routes } from '../core/routes.ts'
import { queryBool, queryInt, lastValue } from '../core/validate.ts'
import { ApiError, insufficientPermissions, internalServerError, invalidParameter } from '../core/error.ts'
import { keyedRequest, keyInUse, replayed, REPLAYED_HEADER } from '../core/idempotency.ts'
import { specMembers } from '../core/identifiers.ts'
import { requestCancelled, requestProgress } from '../ingest/progress.ts'
import type { ResourceVariables } from './env.ts'
import type { ResourceKind } from './class.ts'
import {
  checkCreate, children, createResource, deleteResource, pickMembers, readTree, ROOT_ID, runAfterCommit, serialize,
  requirePermission, serializeRows, serializeRowsBytes, sortRows, subtreeIds, updateResource, writeTree, type PageRow, type ResourceContext,
  type TreeBase, type TreeWriteContext,
} from './service.ts'
import type { Awaitable } from '../port/port.ts'
import { searchResources } from './search.ts'
import { getUser } from '../auth/service.ts'
import { userNotFound } from '../auth/errors.ts'
import { blueprint } from './blueprint.ts'
import { createForbidden, resourceNotFound, rootDeleteError } from './errors.ts'
import type { ResourceRow } from './types.ts'

type Ctx = RequestContext<ResourceVariables>

function baseOf(c: Ctx): TreeBase {
  const { classes, platform, acl, names } = c.get('services')
  return { user: c.get('user'), now: platform.now(), classes, acl, names }
}

/** One read of the data port. */
const read = <T>(c: Ctx, fn: (ctx: ResourceContext) => Awaitable<T>) => readTree(c.get('services').data, baseOf(c), fn)
/** One unit of work of the data port. */
const write = <T>(c: Ctx, fn: (ctx: TreeWriteContext) => Awaitable<T>) => writeTree(c.get('services').data, baseOf(c), fn)

const idOf = (c: Ctx) => Number(c.req.param('id'))

/**
 * A create or change in one main write, after the class's `prepare` (an ingest) did its long
 * work outside it. Progress is reported under the request's `X-Outpost-Progress` token; what
 * was prepared is discarded when the write fails.
 */
async function prepareAndWrite<T>(c: Ctx, cls: ResourceKind | undefined, body: Record<string, unknown>,
  resourceId: number | undefined, fn: (ctx: TreeWriteContext) => Awaitable<T>, idOfResult: (r: T) => number): Promise<T> {
  const progress = requestProgress(c.get('services'), c.req.raw)
  // A client stops the work by cancelling its progress token (or by going away).
  const signal = AbortSignal.any([progress.signal, c.req.raw.signal])
  try {
    const may = (id: number, scope: string, permission: string) =>
      read(c, async (ctx) => await ctx.acl!.check(ctx.tx.acl, ctx.user, id, scope, permission) === true)
    const prep = cls?.prepare
      ? await cls.prepare({ progress, signal, resourceId, may }, pickMembers(body, cls.members)).catch((err: unknown) => {
        throw progress.signal.aborted ? requestCancelled() : err
      })
      : undefined
    let out: T
    try {
      if (prep) progress.stage('saving')
      out = await write(c, (ctx) => {
        // Inside the transaction: a cancel that came before this point leaves nothing behind.
        if (prep && progress.signal.aborted) throw requestCancelled()
        return fn({ ...ctx, prepared: prep })
      })
    } catch (err) {
      await prep?.discard()
      throw err
    } finally {
      prep?.settle()
    }
    if (prep?.afterCommit) {
      try {
        await prep.afterCommit(idOfResult(out))
      } catch (err) {
        // What the create needed after its write failed (a linked layer's first download): no half-made resource stays.
        const after = await write(c, (ctx) => deleteResource(ctx, idOfResult(out)))
        if (after) await runAfterCommit(after, c.get('services').platform.log)
        throw err
      }
    }
    progress.finish({ id: idOfResult(out) })
    return out
  } catch (err) {
    progress.fail(c.get('services').names.errorBody((err instanceof ApiError ? err : internalServerError(err)).toBody()))
    throw err
  }
}

/**
 * What `find` finds, answered by `answer` in the same read — unless a class of its rows must
 * first make ready what its serializer reads outside the main database (`load`, async): then
 * that runs between two reads (`members`: whether the answer has class members at all). One
 * read spares a listing of 10,000 children finding them twice.
 */
async function readLoaded<F extends { rows: PageRow[] }, R>(c: Ctx, find: (ctx: ResourceContext) => Promise<F>,
  answer: (ctx: ResourceContext, found: F) => Promise<R>, members = true): Promise<R> {
  const { classes } = c.get('services')
  const once = await read(c, async (ctx): Promise<{ load: true; found: F } | { load: false; answer: R }> => {
    const found = await find(ctx)
    return members && found.rows.some((r) => classes.get(r.cls).load) ? { load: true, found } : { load: false, answer: await answer(ctx, found) }
  })
  if (!once.load) return once.answer
  await load(c, once.found.rows)
  return read(c, async (ctx) => answer(ctx, await find(ctx)))
}

/** Lets the classes of `rows` make ready what their serializers read outside the main database. */
async function load(c: Ctx, rows: PageRow[]): Promise<void> {
  const { classes } = c.get('services')
  const byCls = new Map<string, number[]>()
  for (const r of rows) {
    let ids = byCls.get(r.cls)
    if (!ids) byCls.set(r.cls, ids = [])
    ids.push(r.id)
  }
  for (const [cls, ids] of byCls) await classes.get(cls).load?.(ids)
}

/** Bytes of a create's body read to answer a refused one (its `resource.cls`). */
const REFUSED_BODY_LIMIT = 16 * 1024

/**
 * The original's refusal of a create by a user who may not create: ForbiddenError naming the
 * class. A body that cannot be read is refused all the same (403, not the original's 400):
 * who may not write learns nothing from the server's parser.
 */
async function createRefusal(c: Ctx): Promise<ApiError> {
  const body = await readJsonObject(c.req.raw, REFUSED_BODY_LIMIT).catch(() => undefined)
  const cls = (body?.resource as { cls?: unknown } | undefined)?.cls
  return createForbidden(typeof cls === 'string' ? cls : undefined)
}

/** Resource `id`'s row or the original's 404. */
async function rowOf(ctx: ResourceContext, id: number): Promise<ResourceRow> {
  const row = await ctx.tx.resources.get(id)
  if (!row) throw resourceNotFound(id)
  return row
}

export function mountResource(routes: Routes<ResourceVariables>): void {
  const collection = async (c: Ctx) => {
    if (c.req.method === 'POST') {
      // A user who may create nothing anywhere (the guest, by default) is refused before the body
      // is buffered; the original names the class in its refusal, so a small body is read for it.
      if (!await read(c, (ctx) => ctx.acl!.mayCreateSomewhere(ctx.tx.acl, ctx.user))) throw await createRefusal(c)
      const keyed = keyedRequest(c.req.raw)
      // Class members in either spelling (`mapserver_style` is `engine_style`): the classes see the spec's.
      const body = specMembers(await readJsonObject(c.req.raw))
      // A replayed create answers before anything is prepared: the first run consumed its upload.
      const past = keyed && await c.get('services').data.read((tx) => tx.requests.past(keyed.key))
      if (past) return json(replayed(past, keyed!), 201, REPLAYED_HEADER)
      const cls = c.get('services').classes.find(String((body.resource as { cls?: unknown } | undefined)?.cls))
      // A create that will fail anyway is refused before a long preparation.
      if (cls?.prepare) await read(c, (ctx) => checkCreate(ctx, body))
      return json(await prepareAndWrite(c, cls, body, undefined, async (ctx) => {
        const { tx } = ctx
        if (!keyed) return createResource(ctx, body)
        if (await tx.requests.past(keyed.key)) throw keyInUse(keyed.key)
        const created = await createResource(ctx, body)
        await tx.requests.record(keyed.key, keyed.fingerprint, JSON.stringify(created), Math.floor(ctx.now.getTime() / 1000))
        return created
      }, (r) => r.id), 201)
    }
    const params = new URL(c.req.url).searchParams
    const parent = queryInt(params, 'parent')
    // Without `parent`: the resources with no parent, i.e. the root (reference §4.3).
    const rowsOf = async (ctx: ResourceContext) => parent === undefined ? [await rowOf(ctx, 0)] : children(ctx, parent)
    // Only what the user may read is listed (reference ngw-services §5.5).
    const shown = async (ctx: ResourceContext) => ({ rows: await sortRows(ctx, await ctx.acl!.readable(ctx.tx.acl, ctx.user, await rowsOf(ctx))) })
    return jsonText(c.get('services').names.resourcesBytes(await readLoaded(c, shown, (ctx, { rows }) => serializeRowsBytes(ctx, rows))))
  }
  routes.add('resource.collection', '/api/resource/', ['GET', 'POST'], { GET: inHandler('resource', 'read', 'listing: children the user may not read are left out'), POST: inHandler('resource', 'create', 'the parent and class of the posted body') }, collection)
  routes.add('resource.collection', '/api/resource', 'POST', { GET: inHandler('resource', 'read', 'listing: children the user may not read are left out'), POST: inHandler('resource', 'create', 'the parent and class of the posted body') }, collection)

  routes.add('resource.item', '/api/resource/{id}', ['GET', 'PUT', 'DELETE'], { GET: onPath('resource', 'read'), PUT: onPath('resource', 'update'), DELETE: inHandler('resource', 'delete', 'the resource and every descendant, once the root is refused to anyone') }, async (c) => {
    const id = idOf(c)
    if (c.req.method === 'GET') {
      const text = await readLoaded(c, async (ctx) => ({ rows: [await rowOf(ctx, id)] }), (ctx, { rows }) => serialize(ctx, rows[0]!))
      return jsonText(c.get('services').names.resourcesText(text))
    }
    const row = await read(c, (ctx) => rowOf(ctx, id))
    // The original refuses to delete the root before it asks who deletes: 422 for anyone.
    if (c.req.method === 'DELETE' && id === ROOT_ID) throw rootDeleteError()
    // A PUT was checked by the route table (update); a delete needs delete on the resource and every descendant (§5.4).
    if (c.req.method === 'DELETE') await read(c, async (ctx) => {
      const refused = await ctx.acl!.refused(ctx.tx.acl, ctx.user, await subtreeIds(ctx, id), 'resource', 'delete')
      if (refused !== undefined) throw insufficientPermissions('delete', 'resource', refused)
    })
    // The body only once the user may change the resource: nobody can make the server buffer a body it refuses.
    const body = c.req.method === 'PUT' ? specMembers(await readJsonObject(c.req.raw)) : undefined
    if (body) {
      const cls = c.get('services').classes.get(row.cls)
      if (!await prepareAndWrite(c, cls, body, id, (ctx) => updateResource(ctx, id, body), () => id)) throw resourceNotFound(id)
    } else {
      const after = await write(c, (ctx) => deleteResource(ctx, id))
      if (!after) throw resourceNotFound(id)
      await runAfterCommit(after, c.get('services').platform.log)
    }
    return json({})
  })

  routes.add('resource.search', '/api/resource/search/', 'GET', inHandler('resource', 'read', 'search: results the user may not read are left out'), async (c) => {
    const params = new URL(c.req.url).searchParams
    const ser = lastValue(params, 'serialization') ?? 'resource'
    if (ser !== 'resource' && ser !== 'full') throw invalidParameter('serialization', `Invalid value '${ser}'; expected resource or full.`)
    const breadcrumb = queryBool(params, 'breadcrumb', false)
    // Results the user may not read are left out (of the page: totals still count them).
    const found = async (ctx: ResourceContext) => {
      const res = await searchResources(ctx.tx.resources, ctx.classes, params, c.get('services').names)
      return { ...res, rows: await ctx.acl!.readable(ctx.tx.acl, ctx.user, res.rows) }
    }
    // Only the full form has class members that may need loading first.
    return jsonText(await readLoaded(c, found, async (ctx, res) => {
      const items = c.get('services').names.resourcesText(await serializeRows(ctx, res.rows, ser === 'full'))
      if (!res.paged) return items
      // The page's facts after its items, as the original orders them; the items' text goes in as it is.
      const out: Record<string, unknown> = { total_count: res.total, limit: res.limit, offset: res.offset, order: res.order }
      if (breadcrumb) out.breadcrumb = await breadcrumbs(ctx, res.rows.map((r) => r.id))
      return `{"items":${items},${JSON.stringify(out).slice(1)}`
    }, ser === 'full'))
  })

  routes.add('resource.permission', '/api/resource/{id}/permission', 'GET', onPath('resource', 'read'), async (c) => {
    // Another user's permissions are shown to who may change this resource's rules (§5.7).
    const id = idOf(c)
    const other = queryInt(new URL(c.req.url).searchParams, 'user', { min: 0 })
    // Read ahead (no nested read); refused below in the original's order: 404, 403, then the unknown user.
    const otherUser = other !== undefined && other !== c.get('user').id ? await getUser(c.get('services').data, other) : undefined
    const linked = await c.get('services').classes.linkedNeeds([id])
    return json(await read(c, async (ctx) => {
      const row = await rowOf(ctx, id)
      let user = ctx.user
      if (other !== undefined && other !== user.id) {
        await requirePermission(ctx, id, 'resource', 'change_permissions')
        user = otherUser ?? (() => { throw userNotFound(other) })()
      }
      const eff = await ctx.acl!.effective(ctx.tx.acl, user, id, ctx.classes.get(row.cls).scopes)
      // A PostGIS layer's data permissions need connect on its connection (§4.5), as every data request checks.
      for (const need of linked) {
        if (eff.data && await ctx.acl!.check(ctx.tx.acl, user, need.on, need.scope, need.permission) === false) {
          eff.data = Object.fromEntries(Object.keys(eff.data).map((p) => [p, false]))
        }
      }
      return eff
    }))
  })

  routes.add('resource.blueprint', '/api/component/resource/blueprint', 'GET', PUBLIC('the classes and scopes of this server'), (c) => json(blueprint(c.get('services').classes, c.get('services').names)))
}

/** For each id, the path from the root to its parent as `{id, display_name}` items. */
async function breadcrumbs(ctx: ResourceContext, ids: number[]): Promise<Record<string, { id: number; display_name: string }[]>> {
  const out: Record<string, { id: number; display_name: string }[]> = {}
  for (const id of ids) out[String(id)] = await ctx.tx.resources.path(id)
  return out
}
