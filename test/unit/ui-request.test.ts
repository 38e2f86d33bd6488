import { afterEach, describe, expect, it, vi } from 'vitest'
import { request } from '../../src/api/request.ts'

/** The headers of each request the UI's client sends, through a recording `fetch`. */
function recordFetch(): Headers[] {
  const sent: Headers[] = []
  vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
    sent.push(new Headers(init.headers))
    return new Response('{"id": 1}', { status: 200 })
  })
  return sent
}

afterEach(() => vi.unstubAllGlobals())

describe('the UI request client', () => {
  it('sends a new Idempotency-Key with every write to its own origin, none with reads or to other servers', async () => {
    const sent = recordFetch()
    await request('/api/resource/1/feature/', { method: 'POST', json: { geom: 'POINT(0 0)' } })
    await request('/api/resource/1/feature/', { method: 'PATCH', json: [] })
    await request('/api/resource/1/feature/')
    await request('https://other.example/api/resource/1/feature/', { method: 'POST', json: {} })
    const keys = sent.map((h) => h.get('idempotency-key'))
    expect(keys[0]).toMatch(/^[\x21-\x7e]{16,255}$/)
    expect(keys[1]).toMatch(/^[\x21-\x7e]{16,255}$/)
    expect(keys[1]).not.toBe(keys[0])
    expect(keys.slice(2)).toEqual([null, null])
  })
})
