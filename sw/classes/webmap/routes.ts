/**
 * @module classes/webmap/routes
 * The web map's endpoints (reference ngw-services §1.6):
 * - `GET /api/resource/{id}/webmap/display_config` and `…/webmap/extent` (`resource.read`);
 * - annotations: `GET|POST /api/resource/{id}/annotation/` and `GET|PUT|DELETE …/annotation/{aid}`
 *   (`webmap.annotation_read` / `annotation_write`, with the owner rules of `annotations.ts`);
 * - `GET /api/component/webmap/option/schema` (public: no data).
 * A `{id}` that is not a web map is a 404 ResourceNotFound, as the original's.
 */
import { json, readJsonObject } from '../../core/http.ts'
import { PUBLIC, onPath, type RequestContext, type Routes } from '../../core/routes.ts'
import { allowed } from '../../auth/checkpoint.ts'
import { resourceNotFound } from '../../resource/errors.ts'
import type { ResourceRef } from '../../resource/types.ts'
import type { MainRead } from '../../port/port.ts'
import type { WebMapVariables } from './env.ts'
import type { WebMapData } from './types.ts'
import { WEBMAP, webMapOf } from './index.ts'
import { displayConfig, webMapExtent } from './display.ts'
import { OPTIONS, OPTION_CATEGORIES } from './settings.ts'
import * as annotations from './annotations.ts'

type Ctx = RequestContext<WebMapVariables>

const idOf = (c: Ctx) => Number(c.req.param('id'))
const aidOf = (c: Ctx) => Number(c.req.param('aid'))

/** Web map `id` as the registry has it; 404 when there is none. */
async function webMapRef(c: Ctx): Promise<{ ref: ResourceRef; doc: WebMapData }> {
  const id = idOf(c)
  const ref = await c.get('services').classes.ref(id)
  if (ref?.cls !== WEBMAP) throw resourceNotFound(id)
  return { ref, doc: webMapOf(ref.data) }
}

const may = (c: Ctx, permission: string) => allowed(c.get('services'), c.get('user'), idOf(c), 'webmap', permission)

async function annotator(c: Ctx): Promise<annotations.Annotator> {
  return { userId: c.get('user').id, manage: await may(c, 'annotation_manage') === true }
}

/** The display names of the authors of `doc`'s annotations (managers see them). */
async function authorNames(tx: MainRead, doc: WebMapData): Promise<Map<number, string>> {
  const out = new Map<number, string>()
  for (const id of new Set(doc.annotations.map((a) => a.user_id))) {
    const row = await tx.principals.row(id, 'U')
    if (row) out.set(id, row.display_name)
  }
  return out
}

/** Changes web map `id`'s document in one unit of work, read afresh inside it. */
function change<T>(c: Ctx, fn: (doc: WebMapData) => { doc: WebMapData; result: T }): Promise<T> {
  const id = idOf(c)
  return c.get('services').data.unitOfWork(async (tx) => {
    const row = await tx.resources.get(id)
    if (row?.cls !== WEBMAP) throw resourceNotFound(id)
    const { doc, result } = fn(webMapOf(JSON.parse(row.data) as Record<string, unknown>))
    await tx.resources.setData(id, doc as unknown as Record<string, unknown>)
    return result
  })
}

export function mountWebMap(routes: Routes<WebMapVariables>): void {
  routes.add('webmap.display_config', '/api/resource/{id}/webmap/display_config', 'GET', onPath('resource', 'read'), async (c) => {
    const { ref, doc } = await webMapRef(c)
    const perms = { read: await may(c, 'annotation_read') === true, write: await may(c, 'annotation_write') === true,
      manage: await may(c, 'annotation_manage') === true }
    const description = (await c.get('services').data.read((tx) => tx.resources.get(ref.id)))?.description ?? null
    return json(await displayConfig(c.get('services'), c.get('user'), ref, doc, perms, description))
  })

  routes.add('webmap.extent', '/api/resource/{id}/webmap/extent', 'GET', onPath('resource', 'read'), async (c) => {
    const { doc } = await webMapRef(c)
    return json(await webMapExtent(c.get('services'), c.get('user'), doc))
  })

  routes.add('webmap.annotation.collection', '/api/resource/{id}/annotation/', ['GET', 'POST'],
    { GET: onPath('webmap', 'annotation_read'), POST: onPath('webmap', 'annotation_write') }, async (c) => {
      if (c.req.method === 'POST') {
        await webMapRef(c)
        const body = await readJsonObject(c.req.raw)
        const id = await change(c, (d) => {
          const made = annotations.create(d, body, c.get('user').id)
          return { doc: made.doc, result: made.id }
        })
        // 200, not 201, as the original answers (§1.6).
        return json({ id })
      }
      const { doc } = await webMapRef(c)
      const who = await annotator(c)
      const names = who.manage ? await c.get('services').data.read((tx) => authorNames(tx, doc)) : new Map<number, string>()
      return json(annotations.listFor(doc, who, names))
    })

  routes.add('webmap.annotation.item', '/api/resource/{id}/annotation/{aid}', ['GET', 'PUT', 'DELETE'],
    { GET: onPath('webmap', 'annotation_read'), PUT: onPath('webmap', 'annotation_write'), DELETE: onPath('webmap', 'annotation_write') },
    async (c) => {
      const { doc } = await webMapRef(c)
      const who = await annotator(c)
      const aid = aidOf(c)
      if (c.req.method === 'GET') {
        const a = annotations.find(doc, aid, who)
        const names = who.manage ? await c.get('services').data.read((tx) => authorNames(tx, doc)) : new Map<number, string>()
        return json(annotations.out(a, who, names))
      }
      if (c.req.method === 'PUT') {
        const body = await readJsonObject(c.req.raw)
        await change(c, (d) => ({ doc: annotations.update(d, aid, body, who), result: undefined }))
        return json({ id: aid })
      }
      await change(c, (d) => ({ doc: annotations.remove(d, aid, who), result: undefined }))
      return json({})
    })

  routes.add('webmap.option.schema', '/api/component/webmap/option/schema', 'GET', PUBLIC('the names of web map options, no data'), () =>
    json({
      options: Object.fromEntries(Object.entries(OPTIONS).map(([identity, o]) => [identity, { identity, ...o }])),
      categories: OPTION_CATEGORIES,
    }))
}
