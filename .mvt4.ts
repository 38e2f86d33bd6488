import { createApp, nodePlatform } from '/work/wt/tiles/sw/host/node.ts'
import { openFeatureLayer } from '/work/wt/tiles/sw/feature/capability.ts'
import { cutLayer } from '/work/wt/tiles/sw/mvt/service.ts'
import { RtreeNodes } from '/work/wt/tiles/sw/mvt/select.ts'
const app = createApp(nodePlatform({ admin: { password: 'x', mustChange: false }, log: console.error }))
const auth = { authorization: 'Basic ' + btoa('administrator:x') }
const req = async (m: string, p: string, body?: unknown) => app.fetch(new Request('http://h' + p, { method: m, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) }))
let r = await req('POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'pts' }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }] } })
const id = (await r.json()).id
const feats = Array.from({ length: 100000 }, (_, i) => ({ geom: `POINT(${(Math.random() - 0.5) * 4e6} ${(Math.random() - 0.5) * 4e6})`, fields: { name: 'p' + i, n: i } }))
r = await req('PATCH', `/api/resource/${id}/feature/`, feats)
const services = await app.services()
const { meta, layer } = await openFeatureLayer(services, id)
const opts = { extent: 4096, padding: 0.05, simplification: 8 }
await layer.db.read((db) => {
  const ts: number[] = []
  for (let k = 0; k < 30; k++) {
    const t0 = performance.now()
    cutLayer(layer.db.sqlite, db, meta, new RtreeNodes('rtree_feature_geom'), { z: 5, x: 15, y: 15 }, opts)
    ts.push(performance.now() - t0)
  }
  console.log(ts.map((t) => t.toFixed(0)).join(' '))
  const t0 = performance.now()
  const rows = db.selectValue(`SELECT count(*) FROM (SELECT f.fid, f.geom, f.fld_1, f.fld_2 FROM rtree_feature_geom r CROSS JOIN feature f ON f.fid = r.id WHERE r.minx <= 2504688 AND r.maxx >= -1252344 AND r.miny <= 1252344 AND r.maxy >= -2504688)`)
  console.log('sql only', rows, (performance.now() - t0).toFixed(1))
})
