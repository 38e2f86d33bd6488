/**
 * Real WMS clients against the Node host (issue 26; reference ngw-services §6.3, §6.4):
 * OWSLib (Debian python3-owslib) reads the capabilities in 1.1.1 and 1.3.0, draws and queries a
 * layer in each (1.3.0 with its latitude-first EPSG:4326 box), and reads an exception; GDAL's WMS
 * driver (Debian gdal-bin) lists the layers and draws one into a PNG with the expected pixels.
 * Both ask with the administrator's credentials after the guest's 401. scripts/ensure-gdal.mjs
 * installs both tools. And our own WMS client (wmsclient_connection / wmsclient_layer) with this
 * server as its remote: capabilities stored, the layer drawn through render with the server's pixels.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'node:http'
import type { Api } from './harness.ts'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import { isColor, makeLayer, makeStyle, pixel, pngToImage, square } from './render-helpers.ts'

let api: Api
let server: Server
let url: string
let dir: string

/** Runs a tool (asynchronously: the host answering it runs in this process). */
function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
    let stdout = '', stderr = ''
    p.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    p.on('error', reject)
    p.on('close', (status) => resolve({ status, stdout, stderr }))
  })
}

beforeAll(async () => {
  let base: string
  ;({ api, server, base } = await startNodeApi())
  dir = mkdtempSync(join(tmpdir(), 'outpost-wms-'))
  const fields = [{ keyname: 'name', datatype: 'STRING' }]
  const layer = await makeLayer(api, expect, 'POLYGON', fields, [{ geom: square(0, 0, 1e6, 1e6), fields: { name: 'a' } }])
  const red = await makeStyle(api, expect, layer, '<map><layer><class><style><color red="255" green="0" blue="0"/></style></class></layer></map>')
  const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'wmsserver_service', parent: { id: 0 }, display_name: 'Squares' },
    wmsserver_service: { layers: [{ keyname: 'red', display_name: 'Red square', resource_id: red }] } } })
  expect(res.status).toBe(201)
  url = `${base.replace(/\/api$/, '')}/api/resource/${res.body.id}/wms`
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

describe('WMS clients against the Node host', () => {
  it('OWSLib reads 1.1.1 and 1.3.0 capabilities, gets the same map and feature in both, and reads a 1.3.0 exception', async () => {
    const script = join(new URL('.', import.meta.url).pathname, 'wms', 'owslib-client.py')
    const r = await run('/usr/bin/python3', [script, url, 'administrator', NODE_ADMIN_PASSWORD])
    expect(r.stderr).toBe('')
    const out = JSON.parse(r.stdout)
    // OWSLib 0.27 raises its ServiceException for the guest's 401 (an empty body), newer ones an HTTPError.
    expect(out.guest).toMatch(/^(ServiceException|HTTPError)/)
    for (const v of ['1.1.1', '1.3.0']) {
      const got = out[v]
      expect({ v, title: got.title, layers: got.layers, layer: got.layer_title, queryable: got.queryable, styles: got.styles })
        .toEqual({ v, title: 'Squares', layers: ['red'], layer: 'Red square', queryable: 1, styles: ['default'] })
      expect(got.wgs84.slice(0, 4).map((n: number) => Number(n.toFixed(4)))).toEqual([0, 0, 8.9832, 8.9466])
      expect(got.operations).toEqual(expect.arrayContaining(['GetCapabilities', 'GetMap', 'GetFeatureInfo']))
      const img = pngToImage(Buffer.from(got.map, 'base64'))
      expect([img.width, img.height]).toEqual([200, 100])
      // 0…8.98° E of 20°, 0…8.95° N of 10°.
      expect(isColor(pixel(img, 40, 50), [255, 0, 0])).toBe(true)
      expect(isColor(pixel(img, 120, 50), [255, 0, 0])).toBe(false)
      expect(pixel(img, 40, 5)[3]).toBe(0)
      expect(got.info.features.map((f: { id: string; properties: unknown }) => [f.id, f.properties])).toEqual([['red.1', { name: 'a' }]])
    }
    expect(out['1.1.1'].crs).toEqual(expect.arrayContaining(['EPSG:3857', 'EPSG:4326']))
    expect(out['1.3.0'].exception).toBe("Validation error: Unknown layer: 'nope'.")
  })

  it("GDAL's WMS driver lists the layer and draws it into a PNG with the expected pixels", async () => {
    const env = { GDAL_HTTP_AUTH: 'BASIC', GDAL_HTTP_USERPWD: `administrator:${NODE_ADMIN_PASSWORD}` }
    const info = await run('gdalinfo', [`WMS:${url}`], env)
    expect(info.status).toBe(0)
    expect(info.stdout).toMatch(/SUBDATASET_1_NAME=WMS:.*LAYERS=red/)
    expect(info.stdout).toContain('SUBDATASET_1_DESC=Red square')
    const out = join(dir, 'map.png')
    const src = `WMS:${url}?SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=red&SRS=EPSG:3857&BBOX=0,0,2000000,2000000&FORMAT=image/png&TRANSPARENT=TRUE`
    const t = await run('gdal_translate', ['-of', 'PNG', '-outsize', '200', '200', src, out], env)
    expect(t.stderr.split('\n').filter((l) => /^ERROR/.test(l))).toEqual([])
    expect(t.status).toBe(0)
    const img = pngToImage(readFileSync(out))
    expect([img.width, img.height]).toEqual([200, 200])
    expect(isColor(pixel(img, 50, 150), [255, 0, 0])).toBe(true)
    expect(pixel(img, 150, 50)[3]).toBe(0)
    // Without credentials GDAL is told to supply them.
    const guest = await run('gdalinfo', [`WMS:${url}`])
    expect(guest.status).not.toBe(0)
    expect(guest.stderr).toMatch(/401/)
  })
})
