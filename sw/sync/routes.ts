/**
 * @module sync/routes
 * Outpost's sync endpoints (the original has none of these):
 * - `POST /api/resource/{id}/sync`: one round, answered with its report;
 * - `GET /api/resource/{id}/sync`: the state (changes waiting, conflicts, last rounds, progress);
 * - `GET /api/resource/{id}/sync/conflict/`, `PUT …/sync/conflict/{cid}`: conflicts, both
 *   versions, resolved by `{"keep": "local"|"remote"}` or a merged `{"feature": …}`;
 * - `GET|POST /api/component/outpost/sync/`: every linked layer; a round of each;
 * - `GET /api/resource/{id}/remote/?parent=`: a connection's remote tree, to pick layers from;
 * - `GET /api/component/outpost/sync/team`: the team's server this app is served from.
 * Reads are open to everyone, everything else needs an administrator.
 */
import { json, readJsonObject } from '../core/http.ts'
import { ADMINISTRATOR, AUTHENTICATED, PUBLIC, onPath, type RequestContext, type Routes } from '../core/routes.ts'
import { queryInt } from '../core/validate.ts'
import type { Principal } from '../auth/types.ts'
import { conflictNotFound, notLinked } from './errors.ts'
import { conflictJson, parseChoice, resolveConflict } from './resolve.ts'
import { syncAll, syncHost, syncRound } from './round.ts'
import { linkedLayers, remoteChildren, syncState, teamServer, type SyncServices } from './service.ts'

export interface SyncVariables {
  services: SyncServices
  user: Principal
}

type Ctx = RequestContext<SyncVariables>

const idOf = (c: Ctx) => Number(c.req.param('id'))

async function replicaOf(c: Ctx) {
  const replica = await c.get('services').classes.replica(idOf(c))
  if (!replica) throw notLinked(idOf(c))
  return replica
}

export function mountSync(routes: Routes<SyncVariables>): void {
  routes.add('outpost.sync.item', '/api/resource/{id}/sync', ['GET', 'POST'], { GET: onPath('data', 'read'), POST: onPath('data', 'write') }, async (c) => {
    const { classes, platform, data } = c.get('services')
    if (c.req.method === 'GET') return json(await syncState(c.get('services'), idOf(c)))
    return json(await syncRound(classes, syncHost(platform, data), idOf(c)))
  })

  routes.add('outpost.sync.conflict.collection', '/api/resource/{id}/sync/conflict/', 'GET', onPath('data', 'read'), async (c) => {
    const replica = await replicaOf(c)
    return json(await replica.read(async (_tx, r) => (await r.conflicts()).map(conflictJson)))
  })

  routes.add('outpost.sync.conflict.item', '/api/resource/{id}/sync/conflict/{cid}', ['GET', 'PUT'], { GET: onPath('data', 'read'), PUT: onPath('data', 'write') }, async (c) => {
    const cid = Number(c.req.param('cid'))
    if (c.req.method === 'GET') {
      const replica = await replicaOf(c)
      const conflict = await replica.read((_tx, r) => r.conflict(cid))
      if (!conflict) throw conflictNotFound(cid)
      return json(conflictJson(conflict))
    }
    const choice = parseChoice(await readJsonObject(c.req.raw))
    await resolveConflict(await replicaOf(c), cid, choice, c.get('user').id)
    return json({})
  }, { cid: '[0-9]+' })

  routes.add('outpost.sync.collection', '/api/component/outpost/sync/', ['GET', 'POST'], { GET: AUTHENTICATED, POST: ADMINISTRATOR }, async (c) => {
    const services = c.get('services')
    // Only the layers whose sync state the person may read (`data.read`, as GET …/sync asks).
    const may = async (id: number) => !!(await services.data.read((tx) => services.acl.check(tx.acl, c.get('user'), id, 'data', 'read')))
    if (c.req.method === 'GET') return json(await linkedLayers(services, may))
    return json(await syncAll(services.classes, syncHost(services.platform, services.data)))
  })

  routes.add('outpost.sync.team', '/api/component/outpost/sync/team', 'GET', PUBLIC('where the team server is, for the sign-in form'), async (c) =>
    json(await teamServer(c.get('services').platform)))

  routes.add('outpost.remote.collection', '/api/resource/{id}/remote/', 'GET', onPath('connection', 'connect'), async (c) => {
    const parent = queryInt(new URL(c.req.url).searchParams, 'parent', { min: 0 }) ?? 0
    return json(await remoteChildren(c.get('services'), idOf(c), parent))
  })
}
