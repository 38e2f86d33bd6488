/**
 * Publishing a web map, Node↔Node, the app's backend on PostgreSQL + PostGIS: its layer is a
 * PostGIS table, linked to its copy on the team's server with the bookkeeping started afresh
 * (webmap-publish-suite.ts).
 */
import { startNodeApi } from './node-client.ts'
import { postgresData } from '../../sw/host/node.ts'
import { cluster } from '../pg/shared.ts'
import { publishSuite } from './webmap-publish-suite.ts'

publishSuite(' on PostgreSQL', async () =>
  startNodeApi({ app: { data: postgresData(await (await cluster()).database('wmpub'), { maxConnections: 4 }) } }))
