/**
 * NextGIS's own JavaScript client, `@nextgis/ngw-connector` 1.19.6 (its Node build), against
 * the Node host. Its Node transport rejects with the error body's `message`, and `connect()`
 * treats an `undefined` rejection of its login as no error: against the original (a running
 * 5.4.0, docs/sync.md) a wrong password therefore makes `connect()` resolve, with no user, and
 * the session goes on as the guest. A `message` in our InvalidCredentialsException made it
 * reject instead.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Server } from 'node:http'
import { createRequire } from 'node:module'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'

interface Connector {
  user?: { keyname: string }
  connect(): Promise<unknown>
  getResource(id: number): Promise<{ resource: { id: number; cls: string } } | undefined>
}
const NgwConnector = createRequire(import.meta.url)('@nextgis/ngw-connector') as new (o: unknown) => Connector

describe('@nextgis/ngw-connector against the Node host', () => {
  let server: Server
  let base: string
  beforeAll(async () => {
    ({ server, base } = await startNodeApi())
    // The connector's Node build logs every failed request with console.warn.
    vi.spyOn(console, 'warn').mockImplementation(() => {})
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('a wrong password: connect() resolves without a user, as against the original; requests go on as the guest', async () => {
    const c = new NgwConnector({ baseUrl: base, auth: { login: 'administrator', password: 'wrong' } })
    await expect(c.connect()).resolves.toBeDefined()
    expect(c.user).toBeUndefined()
    // Our guest may read the tree (the original's default root ACL lets only administrators: there it rejects).
    expect((await c.getResource(0))?.resource).toMatchObject({ id: 0, cls: 'resource_group' })
  })

  it('the right password: connect() logs in and reads as the administrator', async () => {
    const c = new NgwConnector({ baseUrl: base, auth: { login: 'administrator', password: NODE_ADMIN_PASSWORD } })
    await c.connect()
    expect(c.user?.keyname).toBe('administrator')
    expect((await c.getResource(0))?.resource.id).toBe(0)
  })
})
