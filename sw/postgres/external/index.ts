/**
 * @module postgres/external
 * The PostgreSQL implementation of `SpatialDbPort` (sw/port/spatialdb.ts): tables of a team's
 * own PostGIS database published as layers without copying them (issue 24). The Node host
 * opens it (sw/host/node.ts); the service worker has none. Pools per connection resource
 * (pools.ts), inspection (inspect.ts), what `fields: "update"` reads (describe.ts), the
 * diagnostics (check.ts), and the remote table as a feature layer (layer.ts).
 */
import { ApiError, externalDatabaseError } from '../../core/error.ts'
import type { FeatureLayer } from '../../feature/types.ts'
import type { SpatialDbParams, SpatialDbPort } from '../../port/spatialdb.ts'
import { connectReason, connectRefusal, externalError, POOL_DEFAULTS, Pools, withClient, type PoolOptions } from './pools.ts'
import { inspectSchemas, tableColumns } from './inspect.ts'
import { describeTable } from './describe.ts'
import { checkDatabase } from './check.ts'
import { remoteLayer } from './layer.ts'

export type SpatialDbOptions = Partial<PoolOptions>

/**
 * `layer` whose 503s for a database it could not reach (or that dropped the connection) say why
 * as the inspection and the diagnostics do (`connectReason`: refused, no socket, a wrong
 * password, a missing database, a timeout), not only the driver's code.
 */
function withReasons(layer: FeatureLayer, params: SpatialDbParams, opts: PoolOptions): FeatureLayer {
  const reasoned = (err: unknown) => {
    if (!(err instanceof ApiError) || err.status !== 503) return err
    const reason = connectReason(err.cause, params, opts.connectTimeoutMs)
    return reason ? externalDatabaseError(reason, err.cause) : err
  }
  return {
    ...layer,
    read: (fn) => layer.read(fn).catch((err) => { throw reasoned(err) }),
    write: (fn, actor) => layer.write(fn, actor).catch((err) => { throw reasoned(err) }),
  }
}

export function openSpatialDb(options: SpatialDbOptions = {}): SpatialDbPort {
  const opts: PoolOptions = { ...POOL_DEFAULTS, ...options }
  const pools = new Pools(opts)
  return {
    inspect: (src) => withClient(pools.get(src), inspectSchemas, (err) => externalError(err, src.params, opts)),
    columns: (src, schema, table) => withClient(pools.get(src), (c) => tableColumns(c, schema, table),
      (err) => externalError(err, src.params, opts)),
    // Run while a resource is created or changed: a failed connect is the client's to fix (422), as in the original.
    describe: (src, t) => withClient(pools.get(src), (c) => describeTable(c, t), (err) => connectRefusal(err, src.params, opts)),
    check: (params, layer) => checkDatabase(params, layer, opts),
    layer: (src, t, meta) => withReasons(remoteLayer(pools.get(src), t, meta), src.params, opts),
    forget: (id) => pools.forget(id),
    close: () => pools.close(),
  }
}
