/**
 * The feature ports' contract (test/port/features.contract.ts) against the SQLite layer of
 * classes/vector_layer and against the array layer (no SQL). An implementation of the feature
 * ports joins by adding its own `featuresContract` line here.
 */
import { nodePlatform } from '../../sw/host/node.ts'
import { Database } from '../../sw/store/database.ts'
import { migrateMain } from '../../sw/sqlite/migrate.ts'
import { openSqlitePort } from '../../sw/sqlite/port.ts'
import { LayerStore } from '../../sw/classes/vector_layer/layers.ts'
import type { ClassEnv } from '../../sw/classes/types.ts'
import type { Field, LayerMeta } from '../../sw/feature/types.ts'
import { arrayFeatureLayer } from '../port/array-features.ts'
import { featuresContract } from '../port/features.contract.ts'

const field = (id: number, keyname: string, datatype: Field['datatype']): Field => ({ id, keyname, display_name: keyname, datatype,
  typemod: null, label_field: false, grid_visibility: true, text_search: true, required: false, lookup_table: null })

featuresContract('SQLite (vector_layer over MemoryStore)', async () => {
  const platform = nodePlatform({ admin: { password: 'x', mustChange: false }, log: () => {} })
  const main = await Database.open(await platform.sqlite(), platform.store, 'main', migrateMain)
  // The layer's resource and its fields, as the vector_layer class writes them on create.
  await main.write((db) => db.exec(`
    INSERT INTO resource (id, cls, parent_id, display_name, owner_user_id, creation_date) VALUES
      (0, 'resource_group', NULL, 'root', 4, '2026-01-01T00:00:00'), (7, 'vector_layer', 0, 'L', 4, '2026-01-01T00:00:00');
    INSERT INTO layer_field (resource_id, idx, keyname, display_name, datatype) VALUES (7, 0, 'name', 'name', 'STRING'), (7, 1, 'n', 'n', 'INTEGER')`))
  const data = openSqlitePort({ main, store: platform.store })
  const layers = new LayerStore({ platform, main, data } as unknown as ClassEnv)
  return layers.open({ id: 7, cls: 'vector_layer', parentId: 0, displayName: 'L', data: { srs: 3857, geometry_type: 'POINT' } })
})

featuresContract('the array layer (no SQL)', async () => {
  const meta: LayerMeta = { resourceId: 7, srs: 3857, geometryType: 'POINT', fields: [field(1, 'name', 'STRING'), field(2, 'n', 'INTEGER')] }
  return arrayFeatureLayer(meta)
})
