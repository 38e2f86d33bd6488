/**
 * Taking a web map offline, Node↔Node, the app's backend on PostgreSQL + PostGIS: the linked
 * layers are PostGIS tables, the tiles blobs in `outpost_blob` (webmap-offline-suite.ts).
 */
import { startNodeApi } from './node-client.ts'
import { postgresData } from '../../sw/host/node.ts'
import { cluster } from '../pg/shared.ts'
import { offlineSuite } from './webmap-offline-suite.ts'

offlineSuite(' on PostgreSQL', async () =>
  startNodeApi({ app: { data: postgresData(await (await cluster()).database('wmoff'), { maxConnections: 4 }) } }))
