/**
 * No request can freeze the server (issue 19): on a real Node process, a tile whose style
 * holds a regex that backtracks is asked for, and while it is outstanding the ping must
 * answer within 200 ms. Before re2js the process froze for minutes (the ping timed out).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiOf, kill, startHost, type Host } from './node-process.ts'
import { NODE_ADMIN_AUTH } from './node-client.ts'
import { evilLayer, regexStyle, EVIL_REGEX } from './cases/hardening-render.ts'
import { makeStyle, T } from './render-helpers.ts'

const PING_MS = 200
// Tiles are read as the administrator: guests read nothing since issue 21.
const headers = { authorization: NODE_ADMIN_AUTH }

describe('a request with a user-written pattern does not freeze the Node host', () => {
  let host: Host
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'outpost-freeze-'))
    host = await startHost(dir)
  })
  afterAll(async () => {
    await kill(host)
    await rm(dir, { recursive: true, force: true })
  })

  it('answers the ping within 200 ms while the evil tile is drawn, and the tile completes quickly', async () => {
    const api = apiOf(host.base)
    const layer = await evilLayer(api, expect)
    const style = await makeStyle(api, expect, layer, regexStyle(`/${EVIL_REGEX}/`))
    const ping = async () => {
      const t0 = performance.now()
      const res = await fetch(`${host.base}/api/component/pyramid/ping`, { signal: AbortSignal.timeout(2000) })
      await res.text()
      return { status: res.status, ms: performance.now() - t0 }
    }
    // The first request and the first tile of a process pay once for loading code and the
    // canvas (~300 ms on this machine); warm both so the rounds below time the pattern only.
    await ping()
    const warm = await fetch(`${host.base}/api/component/render/tile?z=0&x=0&y=0&resource=${await makeStyle(api, expect, layer)}`, { headers })
    expect(warm.status).toBe(200)
    // A different tile each round, so the tile cache never answers for the drawing.
    for (const x of [T.x, T.x + 1, T.x - 1]) {
      const t0 = performance.now()
      const tile = fetch(`${host.base}/api/component/render/tile?z=${T.z}&x=${x}&y=${T.y}&resource=${style}`,
        { headers, signal: AbortSignal.timeout(10_000) }).then(async (r) => ({ status: r.status, ms: performance.now() - t0, bytes: (await r.arrayBuffer()).byteLength }),
          () => ({ status: 0, ms: Infinity, bytes: 0 }))
      // Let the tile request reach the server and start drawing before the ping.
      await new Promise((r) => setTimeout(r, 20))
      const p = await ping()
      expect(p.status).toBe(200)
      expect(p.ms).toBeLessThan(PING_MS)
      const t = await tile
      expect(t.status).toBe(200)
      expect(t.ms).toBeLessThan(5000)
      console.log(`tile x=${x}: ping ${p.ms.toFixed(0)} ms during the tile, tile ${t.ms.toFixed(0)} ms`)
    }
  })
})
