/**
 * Taking a web map offline, Node↔Node, the app's backend on SQLite (webmap-offline-suite.ts;
 * the same cases run against the worker in test/e2e/webmap-offline-sw.spec.ts).
 */
import { startNodeApi } from './node-client.ts'
import { offlineSuite } from './webmap-offline-suite.ts'

offlineSuite('', () => startNodeApi())
