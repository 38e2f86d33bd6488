/**
 * @module spatialdb/service
 * A connection's inspection (reference ngw-services §4.4: schemas and tables, a table's
 * columns) and the diagnostics of a connection or a layer, drafts included.
 */
import { validationError } from '../core/error.ts'
import { expectKeys, expectKind, expectObject } from '../core/validate.ts'
import { requireIds } from '../auth/checkpoint.ts'
import type { Principal } from '../auth/types.ts'
import type { CheckGroup, SpatialDbParams, SpatialDbPort, SpatialDbSource } from '../port/spatialdb.ts'
import type { SpatialDbServices } from './env.ts'
import { noDatabaseHere, notAConnection } from './errors.ts'
import { resourceNotFound } from '../resource/errors.ts'
import { nameOf, portOf, required, sslmodeOf } from './params.ts'
import type { SpatialDbCheckLayer } from './types.ts'

function portOfServices(services: SpatialDbServices): SpatialDbPort {
  if (!services.spatialDb) throw noDatabaseHere()
  return services.spatialDb
}

/** Connection `id`; 404 when there is no such resource (`at` absent: it is the path's), else 422 when it is no PostGIS connection. */
async function sourceOf(services: SpatialDbServices, id: number, at?: string): Promise<SpatialDbSource> {
  const src = await services.classes.spatialDbSource(id)
  if (src) return src
  if (!at && !await services.classes.ref(id)) throw resourceNotFound(id)
  throw at ? notAConnection(id, at) : validationError(`Resource id = ${id} is not a PostGIS connection.`)
}

export async function inspect(services: SpatialDbServices, id: number) {
  const port = portOfServices(services)
  return port.inspect(await sourceOf(services, id))
}

export async function columns(services: SpatialDbServices, id: number, schema: string, table: string) {
  const port = portOfServices(services)
  return port.columns(await sourceOf(services, id), schema, table)
}

/** The draft parameters of a check's `connection`. */
function draftParams(m: Record<string, unknown>): SpatialDbParams {
  expectKeys(m, ['hostname', 'port', 'database', 'username', 'password', 'sslmode'], '$.connection')
  for (const k of ['hostname', 'database', 'username', 'password']) if (m[k] === undefined) throw required(k, '$.connection')
  return { hostname: nameOf(m.hostname, '$.connection.hostname'), port: m.port === undefined ? null : portOf(m.port, '$.connection.port'),
    database: nameOf(m.database, '$.connection.database'), username: nameOf(m.username, '$.connection.username'),
    password: expectKind<string>('str', m.password, '$.connection.password'),
    sslmode: m.sslmode === undefined ? null : sslmodeOf(m.sslmode, '$.connection.sslmode') }
}

const textOr = (v: unknown, path: string, fallback: string) => (v === undefined || v === null ? fallback : nameOf(v, path))

/** The draft table of a check's `layer`. */
function draftLayer(m: Record<string, unknown>): SpatialDbCheckLayer {
  expectKeys(m, ['schema', 'table', 'column_id', 'column_geom', 'geometry_type', 'geometry_srid', 'fields'], '$.layer')
  for (const k of ['table', 'column_id', 'column_geom']) if (m[k] === undefined) throw required(k, '$.layer')
  return { schema: textOr(m.schema, '$.layer.schema', 'public'), table: nameOf(m.table, '$.layer.table'),
    columnId: nameOf(m.column_id, '$.layer.column_id'), columnGeom: nameOf(m.column_geom, '$.layer.column_geom'),
    geometryType: m.geometry_type === undefined ? null : expectKind<string | null>('str', m.geometry_type, '$.layer.geometry_type', true),
    geometrySrid: m.geometry_srid === undefined ? null : expectKind<number | null>('int', m.geometry_srid, '$.layer.geometry_srid', true) }
}

const worst = (checks: CheckGroup[]): CheckGroup['status'] | null =>
  checks.some((c) => c.status === 'error') ? 'error' : checks.some((c) => c.status === 'warning') ? 'warning' : checks.length ? 'success' : null

/**
 * `POST /api/component/postgis/check`: a stored connection (`{id}`, needs `connection.connect`)
 * or a draft one, and optionally a stored layer (`{id}`, needs `resource.read`; its connection
 * when none is given) or a draft one.
 */
export async function check(services: SpatialDbServices, user: Principal, body: Record<string, unknown>) {
  expectKeys(body, ['connection', 'layer'], '$')
  const port = portOfServices(services)
  let layer: SpatialDbCheckLayer | undefined
  let layerConnection: number | undefined
  if (body.layer !== undefined && body.layer !== null) {
    const m = expectObject(body.layer, '$.layer')
    if (m.id !== undefined) {
      const id = expectKind<number>('int', m.id, '$.layer.id')
      await requireIds(services, user, [id], 'resource', 'read')
      const found = await services.classes.spatialDbTable(id)
      if (!found) throw validationError(`Resource id = ${id} is not a PostGIS layer - at \`$.layer.id\``)
      ;({ table: layer, connection: layerConnection } = found)
    } else {
      layer = draftLayer(m)
    }
  }
  let params: SpatialDbParams
  if (body.connection !== undefined && body.connection !== null) {
    const m = expectObject(body.connection, '$.connection')
    if (m.id !== undefined) {
      const id = expectKind<number>('int', m.id, '$.connection.id')
      await requireIds(services, user, [id], 'connection', 'connect')
      params = (await sourceOf(services, id, '$.connection.id')).params
    } else {
      params = draftParams(m)
    }
  } else if (layerConnection !== undefined) {
    await requireIds(services, user, [layerConnection], 'connection', 'connect')
    params = (await sourceOf(services, layerConnection, '$.layer.id')).params
  } else {
    throw required('connection', '$')
  }
  const checks = await port.check(params, layer)
  return { status: worst(checks), checks }
}
