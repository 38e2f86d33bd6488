/**
 * @module postgres/external/layer
 * PLACEHOLDER until helper "sdbtable"'s layer.ts is merged over it (the lead does): the
 * signature agreed for issue 24, so that index.ts compiles. Every feature request on a
 * PostGIS layer answers 503 until then.
 */
import type pg from 'pg'
import { externalDatabaseError } from '../../core/error.ts'
import type { FeatureLayer, LayerMeta } from '../../feature/types.ts'
import type { SpatialDbTable } from '../../port/spatialdb.ts'

export function remoteLayer(_pool: pg.Pool, _t: SpatialDbTable, meta: LayerMeta): FeatureLayer {
  const notYet = () => Promise.reject(externalDatabaseError('The feature access of PostGIS layers is not built yet (helper sdbtable).'))
  return { meta, read: notYet, write: notYet }
}
