import { createApp, nodePlatform } from './sw/host/node.ts'
import { pointFeature, tileSet } from './test/bench/tiles-data.ts'
const app = createApp(nodePlatform({ admin: { password: 'x', mustChange: false }, log: console.error }))
const auth = { authorization: 'Basic ' + btoa('administrator:x') }
const req = async (m: string, p: string, body?: string) => app.fetch(new Request('http://h' + p, { method: m, headers: auth, body }))
let r = await req('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'pts' }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }] } }))
const id = (await r.json()).id
for (let i = 0; i < 100000; i += 10000) await req('PATCH', `/api/resource/${id}/feature/`, JSON.stringify(Array.from({ length: 10000 }, (_, k) => { const f = pointFeature(1, i + k); return { geom: f.wkt, fields: { name: f.name, n: f.n } } })))
const tiles = tileSet(1, 100000, 8)
for (let round = 0; round < 10; round++) {
  const un: number[] = [], ca: number[] = []
  for (const [z, x, y] of tiles) {
    const p = `/api/component/feature_layer/mvt?resource=${id}&z=${z}&x=${x}&y=${y}&padding=0.0${round}`
    let t0 = performance.now(); r = await req('GET', p); await r.arrayBuffer(); un.push(performance.now() - t0)
    t0 = performance.now(); r = await req('GET', p); await r.arrayBuffer(); ca.push(performance.now() - t0)
  }
  const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!.toFixed(2)
  console.log('uncached', med(un), 'cached', med(ca), 'max', Math.max(...un).toFixed(0))
}
