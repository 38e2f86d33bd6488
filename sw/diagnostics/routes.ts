/**
 * @module diagnostics/routes
 * Outpost's own admin-only diagnostics. `POST /api/component/outpost/gdal/inspect?name=<file>`
 * takes a file's raw bytes and answers what GDAL sees in it; it also proves that GDAL starts
 * in the host (lazily: this is the first thing that starts it). `GET
 * /api/component/outpost/storage` answers what the databases hold in memory. `GET
 * /api/component/outpost/gdal` answers how often GDAL was started in this worker's (process's)
 * life and how long its last start took; `POST /api/component/outpost/gdal/start` starts it
 * (the import dialog asks when it opens, so GDAL starts while the file uploads) and answers the same.
 */
import { invalidParameter, parameterRequired } from '../core/error.ts'
import { json } from '../core/http.ts'
import { ADMINISTRATOR, type Routes } from '../core/routes.ts'
import type { Principal } from '../auth/types.ts'
import { gdalStarts, type GdalEngine } from '../../wasm/gdal.ts'
import type { DataPort } from '../port/port.ts'
import { lastValue } from '../core/validate.ts'
import { readBytes } from '../core/limits.ts'
import { uploadMaxSize } from '../upload/limits.ts'
import { uploadTooLarge } from '../upload/errors.ts'
import { inspect, storageUse } from './service.ts'

/** The diagnostics' context. */
export interface DiagnosticsVariables {
  services: { platform: { gdal(): Promise<GdalEngine>; uploadMaxSize?: number }; data: Pick<DataPort, 'sqlite'> }
  user: Principal
}

export function mountDiagnostics(routes: Routes<DiagnosticsVariables>): void {
  routes.add('outpost.gdal_inspect', '/api/component/outpost/gdal/inspect', 'POST', ADMINISTRATOR, async (c) => {
    const name = lastValue(new URL(c.req.url).searchParams, 'name')
    if (!name) throw parameterRequired('name')
    if (!/^[^/\\\0]+$/.test(name) || name === '.' || name === '..') throw invalidParameter('name', 'A plain file name is expected.')
    const max = uploadMaxSize(c.get('services').platform)
    const bytes = await readBytes(c.req.raw, max, () => uploadTooLarge(max))
    const gdal = await c.get('services').platform.gdal()
    return json(await inspect(gdal, name, bytes))
  })
  routes.add('outpost.gdal', '/api/component/outpost/gdal', 'GET', ADMINISTRATOR, () => json(gdalStarts()))
  routes.add('outpost.gdal_start', '/api/component/outpost/gdal/start', 'POST', ADMINISTRATOR, async (c) => {
    await c.get('services').platform.gdal()
    return json(gdalStarts())
  })
  routes.add('outpost.storage', '/api/component/outpost/storage', 'GET', ADMINISTRATOR, async (c) => {
    return json(storageUse(c.get('services').data.sqlite))
  })
}
