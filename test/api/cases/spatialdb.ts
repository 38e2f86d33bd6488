/**
 * Layers from a team's own PostGIS database (issue 24), as both hosts answer them without a
 * database to reach: the Node host stores the resources (connecting only when it must), the
 * service worker refuses them with a 422 that says why. The rest, against a real PostGIS, is
 * test/api/spatialdb.test.ts (Node host only).
 */
import type { ApiCase } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
/** Nothing listens there: the Node host never connects in these cases. */
const CONNECTION = { hostname: '127.0.0.1', port: '1', database: 'gis', username: 'ngw', password: 'secret' }

export const spatialDbCases: ApiCase[] = [
  {
    name: 'a PostGIS connection and layer are kept by the Node host and refused by the service worker, which cannot open a database connection',
    async run(api, expect) {
      const conn = await api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'spatialdb_connection', parent: { id: 0 }, display_name: uniq('PostGIS') }, spatialdb_connection: CONNECTION } })
      if (api.host === 'service-worker') {
        expectError(expect, conn, 422, VALIDATION)
        expect(conn.body.message).toContain('cannot open a database connection in the browser')
        expect(conn.body.message).toContain("create it on a team's server")
        const layer = await api.request('POST', '/api/resource/', { body: {
          resource: { cls: 'spatialdb_layer', parent: { id: 0 }, display_name: uniq('Roads') },
          spatialdb_layer: { connection: { id: 0 }, table: 'roads', column_id: 'id', column_geom: 'geom', srs: { id: 3857 },
            geometry_type: 'POINT', geometry_srid: 3857 } } })
        expectError(expect, layer, 422, VALIDATION)
        expect(layer.body.message).toContain('cannot open a database connection in the browser')
        // Nothing was made.
        const children = await api.request('GET', '/api/resource/?parent=0')
        expect((children.body as { resource: { cls: string } }[]).filter((r) => r.resource.cls.startsWith('spatialdb'))).toEqual([])
        return
      }
      expect(conn.status).toBe(201)
      const got = await api.request('GET', `/api/resource/${conn.body.id}`)
      // The password in clear to whoever reads the connection (the original's, for NextGIS Connect); the port as the spec's string.
      expect(got.body.spatialdb_connection).toEqual({ ...CONNECTION, sslmode: null })
      // Given the geometry, a layer is kept without reading the table (`fields` absent: "keep").
      const layer = await api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'spatialdb_layer', parent: { id: 0 }, display_name: uniq('Roads') },
        spatialdb_layer: { connection: { id: conn.body.id }, table: 'roads', column_id: 'id', column_geom: 'geom', srs: { id: 3857 },
          geometry_type: 'MULTILINESTRING', geometry_srid: 4326 } } })
      expect(layer.status).toBe(201)
      const l = await api.request('GET', `/api/resource/${layer.body.id}`)
      expect(l.body.spatialdb_layer).toEqual({ connection: { id: conn.body.id }, schema: 'public', table: 'roads', column_id: 'id',
        column_geom: 'geom', geometry_type: 'MULTILINESTRING', geometry_srid: 4326, srs: { id: 3857 } })
      expect(l.body.feature_layer).toMatchObject({ geometry_type: 'MULTILINESTRING', srs: { id: 3857 }, fields: [], versioning: null })
      // The features are in the team's database, which does not answer here: 503 naming why, never a 500.
      const features = await api.request('GET', `/api/resource/${layer.body.id}/feature/`)
      expect(features.status).toBe(503)
      expect(features.body.exception).toBe('nextgisweb.core.exception.ExternalDatabaseError')
    },
  },
]
