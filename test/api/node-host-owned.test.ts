/**
 * The Node host as `node-main.ts` runs it, owning the process's globals (`serve`'s
 * `ownsGlobals`: node-server's lightweight Request and Response, answers written without a web
 * stream): every case group, as on the Node host sharing its process (node-host.test.ts).
 * This file runs in its own worker, so the globals it replaces are no other test's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import type { Api } from './harness.ts'
import { startNodeApi } from './node-client.ts'
import { CASE_GROUPS } from './cases/index.ts'

it('replaces the globals with node-server\'s lightweight Response', async () => {
  const { server } = await startNodeApi({ serve: { ownsGlobals: true } })
  server.close()
  expect(new Response('x').constructor.name).not.toBe('Response')
})

for (const [group, cases] of Object.entries(CASE_GROUPS)) {
  describe(`API on the Node host owning its globals: ${group}`, () => {
    let api: Api
    let server: Server
    beforeAll(async () => { ({ api, server } = await startNodeApi({ serve: { ownsGlobals: true } })) })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
    for (const c of cases) it(c.name, () => c.run(api, expect))
  })
}
