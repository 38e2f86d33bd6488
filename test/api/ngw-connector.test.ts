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
import type { Api } from './harness.ts'

interface Connector {
  user?: { keyname: string }
  connect(): Promise<unknown>
  getResource(id: number): Promise<{ resource: { id: number; cls: string } } | undefined>
  getResourceChildren(id: number): Promise<Array<{ resource: { id: number } }>>
}
const NgwConnector = createRequire(import.meta.url)('@nextgis/ngw-connector') as new (o: unknown) => Connector

describe('@nextgis/ngw-connector against the Node host', () => {
  let server: Server
  let base: string
  let api: Api
  beforeAll(async () => {
    ({ server, base, api } = await startNodeApi())
    // The connector's Node build logs every failed request with console.warn.
    vi.spyOn(console, 'warn').mockImplementation(() => {})
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('a wrong password: connect() resolves without a user, as against the original; requests go on as the guest', async () => {
    const c = new NgwConnector({ baseUrl: base, auth: { login: 'administrator', password: 'wrong' } })
    await expect(c.connect()).resolves.toBeDefined()
    expect(c.user).toBeUndefined()
    // The original's default root ACL gives the guest nothing: reading the root is refused. The
    // connector also rejects the copies of that promise it keeps in its cache, unhandled: those
    // are its own, and only they are let through here.
    const own = (err: unknown) => { if (!String(err).includes("Insufficient 'read'")) throw err }
    process.on('unhandledRejection', own)
    await expect(c.getResource(0)).rejects.toMatch(/Insufficient 'read' permission in scope 'resource' on resource id = 0/)
    await new Promise((resolve) => setTimeout(resolve, 50))
    process.off('unhandledRejection', own)
  })

  it('logged in as an ordinary user, it sees exactly the tree the rules allow', async () => {
    const user = await api.request('POST', '/api/component/auth/user/', { body: { keyname: 'viewer', display_name: 'Viewer', password: 'viewer-pw' } })
    const read = (id: number, propagate = false) =>
      ({ action: 'allow', principal: { id: user.body.id }, identity: '', scope: 'resource', permission: 'read', propagate })
    const make = async (parent: number, name: string, permissions: unknown[]) => (await api.request('POST', '/api/resource/', {
      body: { resource: { cls: 'resource_group', parent: { id: parent }, display_name: name, permissions } } })).body.id as number
    const open = await make(0, 'Open', [read(0, true)])
    const inner = await make(open, 'Inner', [])
    await make(open, 'Closed inside', [{ ...read(0, true), action: 'deny' }])
    await make(0, 'Closed', [])
    const c = new NgwConnector({ baseUrl: base, auth: { login: 'viewer', password: 'viewer-pw' } })
    await c.connect()
    expect(c.user?.keyname).toBe('viewer')
    expect((await c.getResourceChildren(0)).map((r) => r.resource.id)).toEqual([open])
    expect((await c.getResourceChildren(open)).map((r) => r.resource.id)).toEqual([inner])
    expect((await c.getResource(inner))?.resource.id).toBe(inner)
  })

  it('the right password: connect() logs in and reads as the administrator', async () => {
    const c = new NgwConnector({ baseUrl: base, auth: { login: 'administrator', password: NODE_ADMIN_PASSWORD } })
    await c.connect()
    expect(c.user?.keyname).toBe('administrator')
    expect((await c.getResource(0))?.resource.id).toBe(0)
  })
})
