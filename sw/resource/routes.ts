/**
 * @module resource/routes
 * `resource.item`, `resource.collection`, `resource.search`, `resource.permission` and
 * `resource.blueprint` (spec §4.1, §4.2; reference §4).
 */
import type { Context } from 'hono'
import type { AppEnv } from '../core/env.ts'
import { json, readJsonObject } from '../core/http.ts'
import type { RouteTable } from '../core/routes.ts'
import { queryBool, queryInt, lastValue } from '../core/validate.ts'
import { invalidParameter } from '../core/error.ts'
import { requireAdmin } from '../auth/middleware.ts'
import { findClass, listClasses } from '../classes/registry.ts'
import type { ClassContext } from '../classes/types.ts'
import type { SqlDb } from '../store/database.ts'
import { children, createResource, deleteResource, requireRow, serialize, updateResource } from './service.ts'
import { searchResources } from './search.ts'
import { permissionsOf, SCOPES } from './permissions.ts'

function ctxOf(c: Context<AppEnv>, db: SqlDb): ClassContext {
  return { db, user: c.get('user'), now: c.get('platform').now() }
}

const read = <T>(c: Context<AppEnv>, fn: (ctx: ClassContext) => T) =>
  c.get('services').main.read((db) => fn(ctxOf(c, db)))
const write = <T>(c: Context<AppEnv>, fn: (ctx: ClassContext) => T) =>
  c.get('services').main.write((db) => fn(ctxOf(c, db)))

const idOf = (c: Context<AppEnv>) => Number(c.req.param('id'))

export function mountResource(routes: RouteTable): void {
  const collection = async (c: Context<AppEnv>) => {
    if (c.req.method === 'POST') {
      const body = await readJsonObject(c.req.raw)
      const parentId = (body.resource as { parent?: { id?: unknown } } | undefined)?.parent?.id
      requireAdmin(c.get('user'), 'manage_children', 'resource', typeof parentId === 'number' ? parentId : 0)
      const cls = (body.resource as { cls?: unknown } | undefined)?.cls
      await prepareMembers(c, typeof cls === 'string' ? cls : undefined, body)
      return json(await write(c, (ctx) => createResource(ctx, body)), 201)
    }
    const params = new URL(c.req.url).searchParams
    const parent = queryInt(params, 'parent')
    return json(await read(c, (ctx) => {
      // Without `parent`: the resources with no parent, i.e. the root (reference §4.3).
      const rows = parent === undefined ? [requireRow(ctx.db, 0)] : children(ctx.db, parent)
      return rows.map((r) => serialize(ctx, r))
    }))
  }
  routes.add('resource.collection', '/api/resource/', ['GET', 'POST'], collection)
  routes.add('resource.collection', '/api/resource', 'POST', collection)

  routes.add('resource.item', '/api/resource/{id}', ['GET', 'PUT', 'DELETE'], async (c) => {
    const id = idOf(c)
    if (c.req.method === 'GET') return json(await read(c, (ctx) => serialize(ctx, requireRow(ctx.db, id))))
    // Read the body before deciding on permissions: a malformed body is a 400 for anyone.
    const body = c.req.method === 'PUT' ? await readJsonObject(c.req.raw) : undefined
    const row = await read(c, (ctx) => requireRow(ctx.db, id))
    requireAdmin(c.get('user'), c.req.method === 'PUT' ? 'update' : 'delete', 'resource', id)
    if (body) await prepareMembers(c, row.cls, body)
    if (body) await write(c, (ctx) => updateResource(ctx, id, body))
    else await write(c, (ctx) => deleteResource(ctx, id))
    return json({})
  })

  routes.add('resource.search', '/api/resource/search/', 'GET', async (c) => {
    const params = new URL(c.req.url).searchParams
    const ser = lastValue(params, 'serialization') ?? 'resource'
    if (ser !== 'resource' && ser !== 'full') throw invalidParameter('serialization', `Invalid value '${ser}'; expected resource or full.`)
    const breadcrumb = queryBool(params, 'breadcrumb', false)
    return json(await read(c, (ctx) => {
      const res = searchResources(ctx.db, params)
      const items = res.rows.map((r) => serialize(ctx, r, ser === 'full'))
      if (!res.paged) return items
      const out: Record<string, unknown> = { items, total_count: res.total, limit: res.limit, offset: res.offset, order: res.order }
      if (breadcrumb) out.breadcrumb = breadcrumbs(ctx.db, res.rows.map((r) => r.id))
      return out
    }))
  })

  routes.add('resource.permission', '/api/resource/{id}/permission', 'GET', async (c) => {
    const id = idOf(c)
    const row = await read(c, (ctx) => requireRow(ctx.db, id))
    return json(permissionsOf(c.get('user'), row.cls))
  })

  routes.add('resource.blueprint', '/api/component/resource/blueprint', 'GET', () => {
    const resources = Object.fromEntries(listClasses().map((k) => [k.identity, {
      identity: k.identity, label: k.label, base_classes: ['resource'], interfaces: k.interfaces,
      scopes: k.scopes, category: k.identity === 'resource_group' ? 'resource_group' : 'layer', order: k.order }]))
    return json({ resources, scopes: SCOPES, categories: {} })
  })
}

/** Lets the class resolve what its members refer to (uploads) before the write starts. */
async function prepareMembers(c: Context<AppEnv>, cls: string | undefined, body: Record<string, unknown>): Promise<void> {
  const k = cls === undefined ? undefined : findClass(cls)
  if (!k?.prepare) return
  const members = Object.fromEntries(k.members.filter((m) => body[m] !== undefined).map((m) => [m, body[m]]))
  Object.assign(body, await k.prepare(c.get('services'), members))
}

/** For each id, the path from the root to its parent as `{id, display_name}` items. */
function breadcrumbs(db: SqlDb, ids: number[]): Record<string, { id: number; display_name: string }[]> {
  const out: Record<string, { id: number; display_name: string }[]> = {}
  for (const id of ids) {
    const path = db.selectObjects(`WITH RECURSIVE up(id, parent_id, display_name, depth) AS (
        SELECT id, parent_id, display_name, 0 FROM resource WHERE id = (SELECT parent_id FROM resource WHERE id = ?)
        UNION ALL SELECT r.id, r.parent_id, r.display_name, up.depth + 1 FROM resource r JOIN up ON r.id = up.parent_id)
      SELECT id, display_name FROM up ORDER BY depth DESC`, [id]) as { id: number; display_name: string }[]
    out[String(id)] = path
  }
  return out
}
