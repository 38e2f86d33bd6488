import { createApp, nodePlatform } from '/work/wt/tiles/sw/host/node.ts'
const app = createApp(nodePlatform({ admin: { password: 'x', mustChange: false }, log: console.error }))
const auth = { authorization: 'Basic ' + btoa('administrator:x') }
const req = async (m: string, p: string, body?: unknown) => app.fetch(new Request('http://h' + p, { method: m, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) }))
let r = await req('POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'pts' }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }] } })
const id = (await r.json()).id
const feats = Array.from({ length: 100000 }, (_, i) => ({ geom: `POINT(${(Math.random() - 0.5) * 4e6} ${(Math.random() - 0.5) * 4e6})`, fields: { name: 'p' + i, n: i } }))
r = await req('PATCH', `/api/resource/${id}/feature/`, feats)
const ts: number[] = []
for (let k = 0; k < 12; k++) {
  const t0 = performance.now()
  r = await req('GET', `/api/component/feature_layer/mvt?resource=${id}&z=5&x=15&y=15&padding=0.0${k}`)
  await r.arrayBuffer()
  ts.push(performance.now() - t0)
}
console.log(ts.map((t) => t.toFixed(0)).join(' '))
