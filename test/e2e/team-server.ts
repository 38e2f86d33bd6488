import { test } from '@playwright/test'
import type { Server } from 'node:http'
import { createApp, nodePlatform, serve } from '../../sw/host/node.ts'
import { httpApi, NODE_ADMIN_PASSWORD } from '../api/node-client.ts'
import type { Api } from '../api/harness.ts'

/** A team's server for the UI specs: an Outpost Node host in this process serving the built app, as `npm start` does. */
export interface TeamServer { base: string; team: Api; close: () => Promise<void> }

export async function startTeamServer(): Promise<TeamServer> {
  const app = createApp(nodePlatform({ admin: { password: NODE_ADMIN_PASSWORD, mustChange: false }, log: () => {} }))
  const server: Server = await serve(app, { port: 0, staticDir: 'dist' })
  const addr = server.address()
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
  return { base, team: httpApi(base), close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** Starts a team's server before a spec file's tests and stops it after them; its fields are set once they run. */
export function useTeamServer(): TeamServer {
  const server = {} as TeamServer
  test.beforeAll(async () => { Object.assign(server, await startTeamServer()) })
  test.afterAll(() => server.close())
  return server
}
