/**
 * @module feature/identify-routes
 * `POST /api/feature_layer/identify` (reference §10): body `{geom, srs, layers}`, all three
 * required.
 */
import { inHandler, type Routes } from '../core/routes.ts'
import { json, readJsonObject } from '../core/http.ts'
import { expectKind } from '../core/validate.ts'
import { validationError } from '../core/error.ts'
import { loadProjection } from '../geo/srs.ts'
import { allowed } from '../auth/checkpoint.ts'
import { identify } from './identify.ts'
import type { DataOutVariables } from './capability.ts'

function required<T>(body: Record<string, unknown>, key: string, kind: 'str' | 'int' | 'array'): T {
  if (!(key in body)) throw validationError(`Object missing required field \`${key}\` - at \`$\``, { location: ['body', key] })
  return expectKind<T>(kind, body[key], `$.${key}`)
}

export function mountIdentify(routes: Routes<DataOutVariables>): void {
  routes.add('feature_layer.identify', '/api/feature_layer/identify', 'POST', inHandler('data', 'read', 'the layers of the posted body'), async (c) => {
    const body = await readJsonObject(c.req.raw)
    const geom = required<string>(body, 'geom', 'str')
    const srs = required<number>(body, 'srs', 'int')
    const layers = required<unknown[]>(body, 'layers', 'array').map((v, i) => expectKind<number>('int', v, `$.layers[${i}]`))
    if (!(await loadProjection(srs, c.get('services').platform.epsg))) throw validationError(`Spatial reference system id = ${srs} is not known - at \`$.srs\``, { location: ['body', 'srs'] })
    // Through the checkpoint's rule, linked needs included (a PostGIS layer's connection).
    const may = async (id: number, scope: string, permission: string) => !!(await allowed(c.get('services'), c.get('user'), id, scope, permission))
    return json(await identify(c.get('services'), may, { geom, srs, layers }))
  })
}
