import { test } from '@playwright/test'
import type { Server } from 'node:http'
import { createApp, nodePlatform, serve } from '../../sw/host/node.ts'
import { httpApi, NODE_ADMIN_PASSWORD } from '../api/node-client.ts'
import type { Api } from '../api/harness.ts'

/** A team's server for the UI specs: an Outpost Node host in this process serving the built app, as `npm start` does. */
export interface TeamServer {
  base: string
  team: Api
  close: () => Promise<void>
  /**
   * Makes each drawn tile (`render/tile`) answer `ms` later (0: at once), as a slow network would:
   * a spec that stops a job while its tiles come needs them not to have all come first.
   */
  slowTiles: (ms: number) => void
}

export async function startTeamServer(): Promise<TeamServer> {
  const app = createApp(nodePlatform({ admin: { password: NODE_ADMIN_PASSWORD, mustChange: false }, log: () => {} }))
  let tileDelay = 0
  const slowed = { fetch: async (req: Request, info?: Parameters<typeof app.fetch>[1]) => {
    if (tileDelay && new URL(req.url).pathname === '/api/component/render/tile') await new Promise((r) => setTimeout(r, tileDelay))
    return app.fetch(req, info)
  } }
  const server: Server = await serve(slowed, { port: 0, staticDir: 'dist' })
  const addr = server.address()
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
  return { base, team: httpApi(base), close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    slowTiles: (ms) => { tileDelay = ms } }
}

/** Starts a team's server before a spec file's tests and stops it after them; its fields are set once they run. */
export function useTeamServer(): TeamServer {
  const server = {} as TeamServer
  test.beforeAll(async () => { Object.assign(server, await startTeamServer()) })
  test.afterAll(() => server.close())
  return server
}
