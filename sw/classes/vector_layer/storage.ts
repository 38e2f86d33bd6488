/**
 * @module classes/vector_layer/storage
 * The vector layer's GeoPackage storage offered to the data-out components
 * (`GpkgStorage` of `feature/types.ts`): its feature table and R*Tree, read inside one read of the layer's
 * database, with the filter SQL the layer's own reads use.
 */
import { flatten } from '../../geo/flat.ts'
import type { FeatureFilter, LayerMeta } from '../../feature/types.ts'
import type { GpkgStorage, GpkgTables } from '../../feature/types.ts'
import { columnOf, FEATURE_TABLE, RTREE_TABLE } from './schema.ts'
import { filterSql } from './reader.ts'
import type { Layer } from './layer.ts'

export function gpkgStorage(layer: Layer, meta: LayerMeta): GpkgStorage {
  return {
    get version() {
      return layer.db.version
    },
    read<T>(fn: (t: GpkgTables) => T, filter?: FeatureFilter): Promise<T> {
      return layer.db.read((db) => {
        layer.filter = filter?.intersects ? flatten(filter.intersects) : undefined
        try {
          return fn({ sqlite: layer.db.sqlite, db, featureTable: FEATURE_TABLE, rtreeTable: RTREE_TABLE,
            column: (f) => columnOf(f.id), where: (fl) => filterSql(fl, meta.fields) })
        } finally {
          layer.filter = undefined
        }
      })
    },
  }
}
