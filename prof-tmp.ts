import { mkdtempSync } from 'node:fs'
import { createApp, nodePlatform } from './sw/host/node.ts'
import { pointsBody, smallBox } from './test/bench/storage-hosts.ts'
const dir = mkdtempSync('/work/wt/store/.prof-')
const app = createApp(nodePlatform({ dataDir: process.env.MEM ? undefined : dir, admin: { password: 'bench', mustChange: false, force: true }, log: () => {} }))
const auth = 'Basic ' + btoa('administrator:bench')
const call = async (method: string, path: string, body?: string) => {
  const t0 = performance.now()
  const r = await app.fetch(new Request('http://x' + path, { method, headers: { authorization: auth }, body }))
  const j = await r.json()
  return { ms: performance.now() - t0, status: r.status, body: j as any }
}
const N = Number(process.env.N ?? 100000)
const id = (await call('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'x' }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }, { keyname: 'v', datatype: 'REAL' }, { keyname: 'day', datatype: 'DATE' }] } }))).body.id
const bt: number[] = []
for (let f = 0; f < N; f += 10000) bt.push((await call('PATCH', `/api/resource/${id}/feature/`, pointsBody(f, 10000, N))).ms)
console.log('batches', bt.map((x) => x.toFixed(0)).join(' '))
const first = (await call('GET', `/api/resource/${id}/feature/?limit=1`)).body[0].id
const ed: number[] = [], bx: number[] = []
for (let i = 0; i < 16; i++) {
  const r = await call('PUT', `/api/resource/${id}/feature/${first + (i * 7919) % N}`, JSON.stringify({ geom: `POINT(${4e6 + i} ${7.5e6})`, fields: { name: 'e' + i, n: -i } }))
  ed.push(r.ms)
  const b = await call('GET', `/api/resource/${id}/feature/?intersects=${encodeURIComponent(smallBox(N, i + 1))}`)
  bx.push(b.ms)
}
console.log('edits', ed.map((x) => x.toFixed(1)).join(' '))
console.log('boxes', bx.map((x) => x.toFixed(1)).join(' '))
console.log('rss', (process.memoryUsage().rss / 2 ** 20).toFixed(0), 'heap', (process.memoryUsage().heapUsed / 2 ** 20).toFixed(0))
process.exit(0)
