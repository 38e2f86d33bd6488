/**
 * @module spatialdb/routes
 * A team's own PostGIS databases (issue 24; reference ngw-services §4.4):
 * - `GET /api/resource/{id}/inspect/`: the connection's schemas with their tables and views;
 * - `GET /api/resource/{id}/inspect/{table}/?schema=public`: a table's columns and types;
 * - `POST /api/component/postgis/check` (and the spec's spelling, `…/spatialdb/check`): the
 *   diagnostics of a connection and a layer, stored or draft.
 * Inspection needs `connection.connect`; a check, a signed-in user (and the permissions of
 * the resources it names, checked in the handler).
 */
import { json, readJsonObject } from '../core/http.ts'
import { AUTHENTICATED, onPath, type RequestContext, type Routes } from '../core/routes.ts'
import { lastValue } from '../core/validate.ts'
import type { SpatialDbVariables } from './env.ts'
import { check, columns, inspect } from './service.ts'

type Ctx = RequestContext<SpatialDbVariables>

const idOf = (c: Ctx) => Number(c.req.param('id'))

export function mountSpatialDb(routes: Routes<SpatialDbVariables>): void {
  routes.add('postgis.connection.inspect', '/api/resource/{id}/inspect/', 'GET', onPath('connection', 'connect'), async (c) =>
    json(await inspect(c.get('services'), idOf(c))))

  routes.add('postgis.connection.inspect.table', '/api/resource/{id}/inspect/{table}/', 'GET', onPath('connection', 'connect'), async (c) => {
    const schema = lastValue(new URL(c.req.url).searchParams, 'schema') || 'public'
    return json(await columns(c.get('services'), idOf(c), schema, c.req.param('table')!))
  }, { table: '[^/]+' })

  for (const component of ['postgis', 'spatialdb']) {
    routes.add(`${component}.check`, `/api/component/${component}/check`, 'POST', AUTHENTICATED, async (c) =>
      json(await check(c.get('services'), c.get('user'), await readJsonObject(c.req.raw))))
  }
}
