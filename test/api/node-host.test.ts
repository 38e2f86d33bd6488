import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import type { Api } from './harness.ts'
import { startNodeApi } from './node-client.ts'
import { CASE_GROUPS } from './cases/index.ts'

// One server per group, as the browser runs each group in a fresh context: a group may leave
// its server changed (a new password, a login locked after failed attempts).
for (const [group, cases] of Object.entries(CASE_GROUPS)) {
  describe(`API on the Node host: ${group}`, () => {
    let api: Api
    let server: Server
    beforeAll(async () => { ({ api, server } = await startNodeApi()) })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
    for (const c of cases) it(c.name, () => c.run(api, expect))
  })
}
