import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'node:http'
import type { Api } from './harness.ts'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import { pointsGeojson, TIFFS } from './ingest-files.ts'

// GDAL's NGW driver from Debian's gdal-bin (3.6; scripts/ensure-gdal.mjs installs it) writes
// into the Node host as it writes into the original: `ogr2ogr -f NGW` creates a group, a vector
// layer and its features; `gdal_translate -of NGW` uploads a GeoTIFF, creates a raster layer and
// a raster style, then reads the layer's extent. Debian's 3.6 sends JSON with a form
// content type; the host reads it as JSON.

let api: Api
let server: Server
let base: string
let dir: string

beforeAll(async () => {
  ({ api, server, base } = await startNodeApi())
  dir = mkdtempSync(join(tmpdir(), 'outpost-ngw-'))
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** Runs a GDAL tool (asynchronously: the host answering it runs in this process). */
function gdal(tool: string, args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(tool, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    p.on('error', reject)
    p.on('close', (status) => resolve({ status, stderr }))
  })
}

const ngw = (name: string) => `NGW:${base}/resource/0/${name}`
const errors = (stderr: string) => stderr.split('\n').filter((l) => /^ERROR/.test(l))

async function childOf(parentName: string): Promise<Array<{ resource: { id: number; cls: string; display_name: string } }>> {
  const [group] = (await api.request('GET', `/api/resource/search/?display_name=${encodeURIComponent(parentName)}`)).body
  return (await api.request('GET', `/api/resource/?parent=${group.resource.id}`)).body
}

describe("GDAL's NGW driver (Debian gdal-bin) against the Node host", () => {
  it('ogr2ogr -f NGW creates a vector layer with every feature, dates included', async () => {
    const src = join(dir, 'wells.geojson')
    writeFileSync(src, pointsGeojson(120))
    const r = await gdal('ogr2ogr', ['-f', 'NGW', ngw('wells-ngw'), src, '-t_srs', 'EPSG:3857', '-dsco', `USERPWD=administrator:${NODE_ADMIN_PASSWORD}`])
    expect(errors(r.stderr)).toEqual([])
    expect(r.status).toBe(0)
    const [layer] = await childOf('wells-ngw')
    expect(layer!.resource.cls).toBe('vector_layer')
    expect((await api.request('GET', `/api/resource/${layer!.resource.id}/feature_count`)).body).toEqual({ total_count: 120 })
    const f = (await api.request('GET', `/api/resource/${layer!.resource.id}/feature/2?dt_format=iso`)).body
    expect(f.fields).toEqual({ name: 'Well 2', depth: 11.5, year: 1991, surveyed: '2020-01-02' })
  })

  it('gdal_translate -of NGW uploads a GeoTIFF and creates a raster layer and a raster style', async () => {
    const src = join(dir, 'ortho.tif')
    writeFileSync(src, await TIFFS.rgb())
    const r = await gdal('gdal_translate', ['-of', 'NGW', src, ngw('ortho'), '-co', `USERPWD=administrator:${NODE_ADMIN_PASSWORD}`])
    expect(errors(r.stderr)).toEqual([])
    expect(r.status).toBe(0)
    const [layer] = (await api.request('GET', '/api/resource/search/?display_name=ortho&cls=raster_layer')).body
    expect(layer.resource.cls).toBe('raster_layer')
    const full = (await api.request('GET', `/api/resource/${layer.resource.id}`)).body
    expect(full.raster_layer).toMatchObject({ srs: { id: 3857 }, band_count: 4, dtype: 'Byte' })
    const styles = (await api.request('GET', `/api/resource/?parent=${layer.resource.id}`)).body
    expect(styles.map((s: { resource: { cls: string } }) => s.resource.cls)).toEqual(['raster_style'])
    const extent = (await api.request('GET', `/api/resource/${layer.resource.id}/extent`)).body.extent
    expect(extent.minLon).toBeCloseTo(30, 3)
    expect(extent.maxLat).toBeCloseTo(61, 3)
  })
})
