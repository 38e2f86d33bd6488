import { describe, expect, it } from 'vitest'
import { createApp, nodePlatform } from '../../sw/host/node.ts'
import { Database } from '../../sw/store/database.ts'
import { migrateLayer } from '../../sw/sqlite/features/schema.ts'
import type { LayerMeta } from '../../sw/feature/types.ts'

const AUTH = { authorization: 'Basic ' + btoa('administrator:pw') }

async function setup() {
  const platform = nodePlatform({ admin: { password: 'pw', mustChange: false }, log: () => {} })
  const app = createApp(platform)
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(new Request(`http://host${path}`, { method, headers: AUTH, body: body === undefined ? undefined : JSON.stringify(body) }))
    return { status: res.status, body: await res.json() }
  }
  const layer = (await call('POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'L' },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } })).body.id as number
  /** Opens the layer's saved image as a separate database, as an export would. */
  const image = async () => Database.open(await platform.sqlite(), platform.store, `layer-${layer}`, () => {})
  return { platform, app, call, layer, image }
}

describe('feature storage', () => {
  it('keeps each layer in its own GeoPackage-shaped database, saved before the answer', async () => {
    const { call, layer, image } = await setup()
    const created = await call('PATCH', `/api/resource/${layer}/feature/`, [{ geom: 'POINT(1 2)', fields: { name: 'a' } }, { geom: 'POINT(3 4)' }])
    const [a, b] = created.body.map((x: { id: number }) => x.id)
    await call('PUT', `/api/resource/${layer}/feature/${a}`, { fields: { name: 'b' } })
    await call('DELETE', `/api/resource/${layer}/feature/${b}`)
    const db = await image()
    await db.read((sql) => {
      expect(sql.selectValue('PRAGMA application_id')).toBe(0x47504b47)
      expect(sql.selectObject('SELECT table_name, data_type, srs_id FROM gpkg_contents')).toEqual({ table_name: 'feature', data_type: 'features', srs_id: 3857 })
      expect(sql.selectObject('SELECT geometry_type_name, srs_id, z, m FROM gpkg_geometry_columns')).toEqual({ geometry_type_name: 'POINT', srs_id: 3857, z: 0, m: 0 })
      expect(sql.selectValue(`SELECT extension_name FROM gpkg_extensions`)).toBe('gpkg_rtree_index')
      const cols = sql.selectValues(`SELECT name FROM pragma_table_info('feature')`)
      expect(cols[0]).toBe('fid')
      expect(cols[1]).toBe('geom')
      expect(cols[2]).toMatch(/^fld_\d+$/)
      const blob = sql.selectValue('SELECT geom FROM feature') as Uint8Array
      expect([...blob.subarray(0, 2)]).toEqual([0x47, 0x50])
      expect(sql.selectArrays('SELECT id, minx, maxx, miny, maxy FROM rtree_feature_geom')).toEqual([[a, 1, 1, 2, 2]])
      // Versions: 1 the empty start, 2 the batch, 3 the update, 4 the delete; history keeps the old values.
      expect(sql.selectArrays('SELECT fid, vid, op FROM feature_vstate ORDER BY fid')).toEqual([[a, 3, 'U'], [b, 4, 'D']])
      expect(sql.selectArrays('SELECT fid, vid, nid, op, nop FROM feature_history ORDER BY fid, vid')).toEqual([[a, 2, 3, 'C', 'U'], [b, 2, 4, 'C', 'D']])
      expect(sql.selectValues('SELECT id FROM feature_version ORDER BY id')).toEqual([1, 2, 3, 4])
      for (const t of ['feature_attachment', 'feature_description']) expect(sql.selectValue(`SELECT 1 FROM sqlite_master WHERE name = ?`, [t])).toBe(1)
    })
    await db.close()
  })

  it('migrates a layer of schema 2 to 3: the sync problems table is added, nothing else changes', async () => {
    const { platform, call, layer, image } = await setup()
    await call('POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(1 2)', fields: { name: 'kept' } })
    const old = await image()
    await old.write((sql) => {
      sql.exec(`DROP TABLE sync_problem; UPDATE layer_meta SET value = '2' WHERE key = 'schema'`)
    })
    await old.close()
    const meta = { resourceId: layer, srs: 3857, geometryType: 'POINT', fields: [] } as unknown as LayerMeta
    const db = await Database.open(await platform.sqlite(), platform.store, `layer-${layer}`, (sql) => migrateLayer(sql, meta))
    await db.read((sql) => {
      expect(sql.selectValue(`SELECT value FROM layer_meta WHERE key = 'schema'`)).toBe('3')
      expect(sql.selectValues(`SELECT name FROM pragma_table_info('sync_problem')`)).toEqual(['rfid', 'fid', 'reason', 'since'])
      expect(sql.selectValue(`SELECT count(*) FROM feature`)).toBe(1)
    })
    await db.close()
  })

  it('deletes the layer database after the layer resource is deleted', async () => {
    const { platform, call, layer } = await setup()
    await call('POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(1 2)' })
    expect(await platform.store.listDatabases()).toContain(`layer-${layer}`)
    expect((await call('DELETE', `/api/resource/${layer}`)).status).toBe(200)
    await call('GET', '/api/resource/0') // the drop is queued behind the delete's commit
    expect(await platform.store.listDatabases()).not.toContain(`layer-${layer}`)
  })

  it("tracks each open layer database as the port's 'layer:N' token: it moves with a write and a field change, and closes with the drop", async () => {
    const { app, call, layer } = await setup()
    const { data } = await app.services()
    const scope = `layer:${layer}` as const
    await call('POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(1 2)', fields: { name: 'a' } })
    const opened = data.tokens.current(scope)
    expect(opened).not.toBe('closed')
    // A read moves nothing; a feature write does.
    await call('GET', `/api/resource/${layer}/feature/`)
    expect(data.tokens.current(scope)).toBe(opened)
    await call('POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(3 4)' })
    const written = data.tokens.current(scope)
    expect(written).not.toBe(opened)
    // A new field: the layer metadata is read again (the main token moved), and its column added.
    expect((await call('PUT', `/api/resource/${layer}`, { feature_layer: { fields: [{ keyname: 'n2', datatype: 'INTEGER' }] } })).status).toBe(200)
    const put = await call('POST', `/api/resource/${layer}/feature/`, { geom: 'POINT(5 6)', fields: { n2: 7 } })
    expect((await call('GET', `/api/resource/${layer}/feature/${put.body.id}`)).body.fields).toEqual({ name: null, n2: 7 })
    expect(data.tokens.current(scope)).not.toBe(written)
    expect((await call('DELETE', `/api/resource/${layer}`)).status).toBe(200)
    await call('GET', '/api/resource/0') // the drop is queued behind the delete's commit
    expect(data.tokens.current(scope)).toBe('closed')
  })
})
