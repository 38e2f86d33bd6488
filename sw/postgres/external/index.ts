/**
 * @module postgres/external
 * The PostgreSQL implementation of `SpatialDbPort` (sw/port/spatialdb.ts): tables of a team's
 * own PostGIS database published as layers without copying them (issue 24). The Node host
 * opens it (sw/host/node.ts); the service worker has none. Pools per connection resource
 * (pools.ts), inspection (inspect.ts), what `fields: "update"` reads (describe.ts), the
 * diagnostics (check.ts), and the remote table as a feature layer (layer.ts).
 */
import type { SpatialDbPort } from '../../port/spatialdb.ts'
import { connectRefusal, externalError, POOL_DEFAULTS, Pools, withClient, type PoolOptions } from './pools.ts'
import { inspectSchemas, tableColumns } from './inspect.ts'
import { describeTable } from './describe.ts'
import { checkDatabase } from './check.ts'
import { remoteLayer } from './layer.ts'

export type SpatialDbOptions = Partial<PoolOptions>

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
    layer: (src, t, meta) => remoteLayer(pools.get(src), t, meta),
    forget: (id) => pools.forget(id),
    close: () => pools.close(),
  }
}
