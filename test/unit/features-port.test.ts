/**
 * The feature ports' contract (test/port/features.contract.ts) against the SQLite port's
 * feature tables (`data.features.open`, sw/sqlite/features) and against the array layer (no SQL), and against the PostgreSQL port's
 * PostGIS tables (a throwaway cluster: test/pg/shared.ts; each case a new database). An implementation of the feature
 * ports joins by adding its own `featuresContract` line here; the versioning cases run where it keeps history (SQLite,
 * PostgreSQL; the array layer keeps none). The replica's contract (test/port/replica.contract.ts) runs on the two
 * engines that keep sync bookkeeping.
 */
import { afterAll } from 'vitest'
import { nodePlatform } from '../../sw/host/node.ts'
import { Database } from '../../sw/store/database.ts'
import { migrateMain } from '../../sw/sqlite/migrate.ts'
import { openSqlitePort } from '../../sw/sqlite/port.ts'
import type { Field, LayerMeta } from '../../sw/feature/types.ts'
import { arrayFeatureLayer } from '../port/array-features.ts'
import { featuresContract, type VersionedOpener } from '../port/features.contract.ts'
import { NOW, replicaContract } from '../port/replica.contract.ts'
import type { FeatureTables } from '../../sw/port/features.ts'
import { openPostgresData } from '../../sw/postgres/port.ts'
import { cluster } from '../pg/shared.ts'

const field = (id: number, keyname: string, datatype: Field['datatype']): Field => ({ id, keyname, display_name: keyname, datatype,
  typemod: null, label_field: false, grid_visibility: true, text_search: true, required: false, lookup_table: null })

/** The PostgreSQL ports the cases opened, closed after the file. */
const opened: { close(): Promise<void> }[] = []
afterAll(async () => { for (const d of opened) await d.close() })

const meta = (): LayerMeta =>
  ({ resourceId: 7, srs: 3857, geometryType: 'POINT', fields: [field(1, 'name', 'STRING'), field(2, 'n', 'INTEGER')] })

async function sqliteTables() {
  const platform = nodePlatform({ admin: { password: 'x', mustChange: false }, log: () => {} })
  const main = await Database.open(await platform.sqlite(), platform.store, 'main', migrateMain)
  return openSqlitePort({ main, store: platform.store }).features
}

async function pgTables() {
  const data = await openPostgresData(await (await cluster()).database('features'), { maxConnections: 4 })
  opened.push(data)
  return data.features
}

/** The versioned cases' opener over fresh tables: the same layer, its meta with `versioning` (absent: off). */
const versionedOver = (tables: () => Promise<FeatureTables>) => async (): Promise<VersionedOpener> => {
  const t = await tables()
  return (versioning) => t.open({ ...meta(), ...(versioning ? { versioning } : {}) }, () => new Date())
}

featuresContract('SQLite (feature tables over MemoryStore)', async () => (await sqliteTables()).open(meta(), () => new Date()),
  versionedOver(sqliteTables))

featuresContract('PostgreSQL (PostGIS tables)', async () => (await pgTables()).open(meta(), () => new Date()), versionedOver(pgTables))

featuresContract('the array layer (no SQL)', async () => arrayFeatureLayer(meta()))

/** A linked layer's replica over fresh tables: versioned, as a linked layer always is. */
const replicaOver = (tables: () => Promise<FeatureTables>) => async () =>
  (await tables()).replica({ ...meta(), versioning: { epoch: 1, userId: null } }, { connection: 1, resource: 2 }, () => NOW)

replicaContract('SQLite (feature tables over MemoryStore)', replicaOver(sqliteTables))
replicaContract('PostgreSQL (PostGIS tables)', replicaOver(pgTables))
