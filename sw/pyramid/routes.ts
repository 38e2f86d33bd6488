/**
 * @module pyramid/routes
 * What existing clients call first (reference §1.4, §11): the route table, settings,
 * versions, health and the list of reference systems.
 */
import { parameterRequired } from '../core/error.ts'
import { json } from '../core/http.ts'
import { ADMINISTRATOR, PUBLIC, type Declared, type Routes } from '../core/routes.ts'
import type { DataPort } from '../port/port.ts'
import type { Platform } from '../platform/platform.ts'
import { lastValue } from '../core/validate.ts'
import { findSrs, listSrs, type SrsDef } from '../geo/srs.ts'
import { srsNotFound } from './errors.ts'
import { exportFormatSettings } from '../export/formats.ts'
import { FILE_UPLOAD, uploadMaxSize } from '../upload/limits.ts'

/** The original's version this server answers as (reference §11: clients parse `major.minor`). */
export const NGW_COMPAT_VERSION = '5.5.0'
export const OUTPOST_VERSION = '0.1.0'


const started = Date.now() / 1000

function srsJson(d: SrsDef) {
  return { id: d.id, display_name: d.displayName, auth_name: 'EPSG', auth_srid: d.id, wkt: null, proj4: d.proj4,
    catalog_id: null, system: d.id === 4326 || d.id === 3857, protected: true, geographic: d.geographic }
}

/** The pyramid component's context. */
export interface PyramidVariables {
  services: { data: Pick<DataPort, 'ping'>; platform: Pick<Platform, 'host' | 'now' | 'uploadMaxSize'> }
}

function settingsOf(component: string, platform: { uploadMaxSize?: number }): Record<string, unknown> {
  switch (component) {
    case 'pyramid':
      return { urlSafePattern: null, support_url: null, help_page_url: null, contactAdministratorUrl: null,
        company_logo: { enabled: false, link: null, ckey: null },
        i18n: { languages: [{ code: 'en', endonym: 'English' }], contributeUrl: null },
        storage: { enabled: false, limit: null }, backup: { download: false },
        lunkwill: { enabled: false, hmux: false }, logoMaxSize: 0 }
    case 'file_upload':
      return { ...FILE_UPLOAD, maxSize: uploadMaxSize(platform) }
    case 'feature_layer':
      return { exportFormats: exportFormatSettings(), versioning: { default: true } }
    case 'resource':
      return { resourceExport: 'data_read' }
    default:
      return {}
  }
}

/** `routes` is the table itself: `pyramid.route` serves it. */
export function mountPyramid(routes: Routes<PyramidVariables> & { toJSON(): unknown; declarations(): readonly Declared[] }): void {
  routes.add('pyramid.route', '/api/component/pyramid/route', 'GET', PUBLIC('the route map'), () => json(routes))

  // Ours: what every route declares it needs (docs/security.md), for the route-table sweep and audits.
  routes.add('outpost.route_needs', '/api/component/outpost/route_needs', 'GET', ADMINISTRATOR, () => json(routes.declarations()))

  routes.add('pyramid.settings', '/api/component/pyramid/settings', 'GET', PUBLIC('public settings'), (c) => {
    const component = lastValue(new URL(c.req.url).searchParams, 'component')
    if (!component) throw parameterRequired('component')
    return json(settingsOf(component, c.get('services').platform))
  })

  routes.add('pyramid.pkg_version', '/api/component/pyramid/pkg_version', 'GET', PUBLIC('versions'), (c) =>
    json({ nextgisweb: NGW_COMPAT_VERSION, outpost: OUTPOST_VERSION, outpost_host: c.get('services').platform.host }))

  routes.add('pyramid.ping', '/api/component/pyramid/ping', 'GET', PUBLIC('liveness'), (c) =>
    json({ current: c.get('services').platform.now().getTime() / 1000, started }))

  routes.add('pyramid.healthcheck', '/api/component/pyramid/healthcheck', 'GET', PUBLIC('health'), async (c) => {
    // A database that cannot answer rejects: the one onError answers 503 with the JSON error body.
    const ok = await c.get('services').data.ping().then(() => true)
    return json({ success: ok, component: { outpost: { success: ok } } }, ok ? 200 : 503)
  })

  routes.add('spatial_ref_sys.collection', '/api/component/spatial_ref_sys/', 'GET', PUBLIC('reference systems'), () => json(listSrs().map(srsJson)))

  routes.add('spatial_ref_sys.item', '/api/component/spatial_ref_sys/{id}', 'GET', PUBLIC('reference systems'), (c) => {
    const id = Number(c.req.param('id'))
    const d = findSrs(id)
    if (!d) throw srsNotFound(id)
    return json(srsJson(d))
  })
}
