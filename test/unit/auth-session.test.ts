import { describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import { sqliteMain } from '../port/sqlite-main.ts'

describe('sessions', () => {
  it('are stored by the SHA-256 of their id, never the id the cookie carries', async () => {
    const app = createApp(nodePlatform({ admin: { password: 'session-test-pw', mustChange: false }, log: () => {} }))
    const res = await app.fetch(new Request('http://host/api/component/auth/login', { method: 'POST',
      body: JSON.stringify({ login: 'administrator', password: 'session-test-pw' }) }))
    expect(res.status).toBe(200)
    const sid = /ngw_sid=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!
    const stored = await sqliteMain(await app.services()).read((db) => db.selectValues('SELECT id FROM session') as string[])
    expect(stored).toEqual([createHash('sha256').update(sid).digest('hex')])
    const me = await app.fetch(new Request('http://host/api/component/auth/current_user', { headers: { cookie: `ngw_sid=${sid}` } }))
    expect((await me.json()).auth_medium).toBe('session')
    // The stored value itself is no session id.
    const forged = await app.fetch(new Request('http://host/api/component/auth/current_user', { headers: { cookie: `ngw_sid=${stored[0]}` } }))
    expect((await forged.json()).keyname).toBe('guest')
  })
})
