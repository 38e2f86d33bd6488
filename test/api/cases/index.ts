/**
 * Every API case group, run on both hosts.
 */
import type { ApiCase } from '../harness.ts'
import { pyramidCases } from './pyramid.ts'
import { authCases } from './auth.ts'
import { resourceCases } from './resource.ts'
import { blueprintCases } from './blueprint.ts'
import { catalogueCases } from './catalogue.ts'
import { featureCases } from './feature.ts'
import { featureBulkCases } from './feature-bulk.ts'
import { uploadCases } from './upload.ts'
import { attachmentCases } from './attachment.ts'
import { versioningCases } from './versioning.ts'
import { nextgisConnectCases } from './nextgis-connect.ts'
import { remoteCases } from './remote.ts'
import { mvtCases } from './mvt.ts'
import { identifyCases } from './identify.ts'
import { exportCases } from './export.ts'
import { basemapCases } from './basemap.ts'
import { storageCases } from './storage.ts'
import { renderCases } from './render.ts'
import { renderQmlCases } from './render-qml.ts'
import { renderGoldenCases } from './render-golden.ts'
import { renderRasterCases } from './render-raster.ts'
import { ingestCases } from './ingest.ts'
import { rasterCases } from './raster.ts'
import { fileBucketCases } from './file-bucket.ts'
import { hardeningCases } from './hardening.ts'
import { hardeningAuthCases } from './hardening-auth.ts'
import { hardeningValueCases } from './hardening-values.ts'
import { hardeningRenderCases } from './hardening-render.ts'
import { idempotencyCases } from './idempotency.ts'
import { compatCases } from './compat.ts'
import { permissionCases } from './permissions.ts'
import { spatialDbCases } from './spatialdb.ts'
import { webmapCases } from './webmap.ts'
import { wmsclientCases } from './wmsclient.ts'
import { wmsCases } from './wms.ts'

export const CASE_GROUPS: Record<string, ApiCase[]> = {
  pyramid: pyramidCases,
  permissions: permissionCases,
  auth: authCases,
  resource: resourceCases,
  blueprint: blueprintCases,
  catalogue: catalogueCases,
  feature: featureCases,
  'feature-bulk': featureBulkCases,
  upload: uploadCases,
  attachment: attachmentCases,
  versioning: versioningCases,
  'nextgis-connect': nextgisConnectCases,
  remote: remoteCases,
  mvt: mvtCases,
  identify: identifyCases,
  export: exportCases,
  basemap: basemapCases,
  storage: storageCases,
  render: renderCases,
  'render-qml': renderQmlCases,
  'render-golden': renderGoldenCases,
  'render-raster': renderRasterCases,
  ingest: ingestCases,
  raster: rasterCases,
  'file-bucket': fileBucketCases,
  hardening: hardeningCases,
  'hardening-auth': hardeningAuthCases,
  compat: compatCases,
  'hardening-values': hardeningValueCases,
  'hardening-render': hardeningRenderCases,
  idempotency: idempotencyCases,
  spatialdb: spatialDbCases,
  webmap: webmapCases,
  wmsclient: wmsclientCases,
  wms: wmsCases,
}
