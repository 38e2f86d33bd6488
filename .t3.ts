import { createApp, nodePlatform } from './sw/host/node.ts'
import { pointFeature, tileSet } from './test/bench/tiles-data.ts'
import { openFeatureLayer } from './sw/feature/capability.ts'
import { cutLayer } from './sw/mvt/service.ts'
import { RtreeNodes, thinnedIds, countInBox, GRID } from './sw/mvt/select.ts'
import { padBbox, tileBbox } from './sw/geo/tile.ts'
const app = createApp(nodePlatform({ admin: { password: 'x', mustChange: false }, log: console.error }))
const auth = { authorization: 'Basic ' + btoa('administrator:x') }
const req = async (m: string, p: string, body?: string) => app.fetch(new Request('http://h' + p, { method: m, headers: auth, body }))
let r = await req('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'pts' }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }] } }))
const id = (await r.json()).id
const N = Number(process.argv[2] ?? 100000)
for (let i = 0; i < N; i += 10000) await req('PATCH', `/api/resource/${id}/feature/`, JSON.stringify(Array.from({ length: 10000 }, (_, k) => { const f = pointFeature(1, i + k); return { geom: f.wkt, fields: { name: f.name, n: f.n } } })))
const services = await app.services()
const { meta, layer } = await openFeatureLayer(services, id)
const opts = { extent: 4096, padding: 0.05, simplification: 8 }
const tiles = tileSet(1, N, 8).filter(([z]) => z <= 7)
await layer.db.read((db) => {
  for (const t of tiles) {
    const box = padBbox(tileBbox(t[0], t[1], t[2]), 0.05)
    let t0 = performance.now()
    const c = countInBox(db, 'rtree_feature_geom', box)
    const tc = performance.now() - t0
    t0 = performance.now()
    const nodes = new RtreeNodes('rtree_feature_geom')
    const ids = c > 16384 ? thinnedIds(db, nodes, box, (box[2] - box[0]) / (GRID * 1.1)) : []
    const tw = performance.now() - t0
    t0 = performance.now()
    const bytes = cutLayer(layer.db.sqlite, db, meta, new RtreeNodes('rtree_feature_geom'), { z: t[0], x: t[1], y: t[2] }, opts)
    const tt = performance.now() - t0
    console.log(t.join('/'), 'count', c, tc.toFixed(1), 'walk ids', ids.length, tw.toFixed(1), 'total', tt.toFixed(1), 'bytes', bytes.length)
  }
})
await layer.db.read((db) => {
  const ts: number[] = []
  for (let k = 0; k < 40; k++) {
    const t0 = performance.now()
    cutLayer(layer.db.sqlite, db, meta, new RtreeNodes('rtree_feature_geom'), { z: 6, x: 37, y: 19 }, opts)
    ts.push(performance.now() - t0)
  }
  console.log('6/37/19 x40', ts.map((t) => t.toFixed(0)).join(' '))
})
