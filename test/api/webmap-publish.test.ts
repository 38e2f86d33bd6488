/**
 * Publishing a web map made in the app to the team's server, Node↔Node, the app's backend on
 * SQLite (webmap-publish-suite.ts; the same cases run against the worker in
 * test/e2e/webmap-publish-sw.spec.ts).
 */
import { startNodeApi } from './node-client.ts'
import { publishSuite } from './webmap-publish-suite.ts'

publishSuite('', () => startNodeApi())
