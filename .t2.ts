import { createApp, nodePlatform, serve } from './sw/host/node.ts'
const app = createApp(nodePlatform({ admin: { password: 'x', mustChange: false }, log: console.error }))
const server = await serve(app, { port: 0 })
const base = `http://127.0.0.1:${(server.address() as any).port}`
const auth = { authorization: 'Basic ' + btoa('administrator:x') }
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!.toFixed(2)
for (let round = 0; round < 3; round++) {
  const h: number[] = [], d: number[] = []
  for (let i = 0; i < 200; i++) {
    let t0 = performance.now(); const r = await fetch(base + '/api/component/pyramid/pkg_version', { headers: auth }); await r.arrayBuffer(); h.push(performance.now() - t0)
    t0 = performance.now(); const q = await app.fetch(new Request(base + '/api/component/pyramid/pkg_version', { headers: auth })); await q.arrayBuffer(); d.push(performance.now() - t0)
  }
  console.log('http', med(h), 'direct', med(d))
}
server.close()
