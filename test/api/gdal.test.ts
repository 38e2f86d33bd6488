import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import type { Api } from './harness.ts'
import { startNodeApi } from './node-client.ts'
import { gdalCases } from './gdal-cases.ts'

// GDAL-WASM in the Node host, through the diagnostics route over real HTTP.
let api: Api
let server: Server

beforeAll(async () => {
  ({ api, server } = await startNodeApi())
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('GDAL on the Node host', () => {
  for (const c of gdalCases) it(c.name, () => c.run(api, expect))
})
