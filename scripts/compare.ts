/**
 * `npm run compare -- [--set=sync|webmap-wms] <original url> [our url]`: sends the same requests to the original
 * NextGIS Web and to Outpost and prints, per scenario, whether the answers match: statuses,
 * and the JSON shapes with ids, timestamps and other run-dependent values normalised away
 * (titles, exception classes, messages with their digits masked, `type`/`action`/`cls` and
 * exported field types are compared as values). Without `our url` it starts the Node host in
 * memory in this process. Passwords: ORIGINAL_PASSWORD (default `admin`), OUR_PASSWORD (for
 * a given `our url`). Not part of `npm test` (CI cannot start the original); it exits 0 when it
 * ran, whatever it found. What it found is written down in docs/sync.md (set `sync`, the
 * default) and in docs/webmaps.md and docs/ogc.md (set `webmap-wms`, test/compare/webmap-wms.ts).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ApiResponse } from '../test/api/harness.ts'
import { pointWkb } from '../test/api/cases/versioning.ts'
import { type Scenario, compareServers, jsonShape, shape } from '../test/compare/core.ts'
import { webmapWmsScenarios } from '../test/compare/webmap-wms.ts'

/** What GDAL reads from a GeoPackage: the field types and the first feature's values (`ogrinfo -al`). */
function gpkgShape(res: ApiResponse): unknown {
  if (res.status !== 200 || !res.bodyBase64) return jsonShape(res)
  const dir = mkdtempSync(join(tmpdir(), 'outpost-compare-'))
  try {
    const file = join(dir, 'export.gpkg')
    writeFileSync(file, Buffer.from(res.bodyBase64, 'base64'))
    const text = execFileSync('ogrinfo', ['-q', '-al', file], { encoding: 'utf8' })
    const fields: Record<string, string> = {}
    const values: Record<string, string> = {}
    for (const m of text.matchAll(/^ {2}(\w+) \((\w+)\) = (.*)$/gm)) {
      fields[m[1]!] = m[2]!
      values[m[1]!] = m[1] === 'ngw_id' ? 'N' : m[3]!
    }
    return { fields, values }
  } catch (err) {
    return `<ogrinfo failed: ${(err as Error).message.split('\n')[0]}>`
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A CSV's header and first row as text (coordinates masked). */
const csvShape = (res: ApiResponse) => (res.status !== 200 ? jsonShape(res)
  : res.text.replace(/^\uFEFF/, '').split(/\r?\n/).slice(0, 2).map((l) => l.replace(/-?\d+\.\d+/g, 'X')))

/** GeoJSON with its features' properties compared as values. */
function geojsonShape(res: ApiResponse): unknown {
  if (res.status !== 200 || res.body === undefined) return jsonShape(res)
  const doc = res.body as { features: { properties: unknown }[]; crs?: unknown }
  return { ...(shape(doc) as object), crs: doc.crs ?? null, properties: doc.features.map((f) => f.properties) }
}

const FEATURE = { geom: 'POINT (1 2)', fields: { r: null, t: '2024-01-02T03:04:05', s: 'a' } }

const SYNC: Scenario[] = [
  { name: 'pkg_version and the route map', async run(s) {
    await s.send('pkg_version', 'GET', '/api/component/pyramid/pkg_version')
    const route = await s.quiet('GET', '/api/component/pyramid/route')
    const names = ['resource.item', 'resource.collection', 'feature_layer.feature.item', 'feature_layer.feature.collection',
      'feature_layer.changes_check', 'feature_layer.transaction.collection', 'feature_layer.version.collection']
    s.steps.push({ label: 'route names', status: route.status, shape: names.map((n) => [n, route.body?.[n] ?? null]) })
  } },
  { name: 'resource CRUD', async run(s) {
    const made = await s.send('create group', 'POST', '/api/resource/', { body: { resource: { cls: 'resource_group',
      parent: { id: s.parent }, display_name: s.name('crud') } } })
    const id = made.body?.id
    await s.send('read', 'GET', `/api/resource/${id}`)
    await s.send('rename', 'PUT', `/api/resource/${id}`, { body: { resource: { display_name: s.name('crud renamed') } } })
    await s.send('children', 'GET', `/api/resource/?parent=${s.parent}`)
    await s.send('delete', 'DELETE', `/api/resource/${id}`)
    await s.send('read deleted', 'GET', `/api/resource/${id}`)
  } },
  { name: 'vector layer and features', async run(s) {
    const layer = await s.layer('create layer', false)
    const read = await s.quiet('GET', `/api/resource/${layer}`)
    s.steps.push({ label: 'layer interfaces', status: read.status, shape: read.body?.resource?.interfaces })
    await s.send('layer members', 'GET', `/api/resource/${layer}`)
    const fid = (await s.send('create feature', 'POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: FEATURE })).body?.id
    await s.send('list', 'GET', `/api/resource/${layer}/feature/?dt_format=iso`)
    await s.send('item', 'GET', `/api/resource/${layer}/feature/${fid}?dt_format=iso`)
    await s.send('update', 'PUT', `/api/resource/${layer}/feature/${fid}`, { body: { fields: { s: 'b' } } })
    await s.send('count', 'GET', `/api/resource/${layer}/feature_count`)
    await s.send('missing feature', 'GET', `/api/resource/${layer}/feature/999999`)
  } },
  { name: 'batch PATCH (versioned and not)', async run(s) {
    for (const versioned of [true, false]) {
      const layer = await s.layer(undefined, versioned)
      const a = (await s.quiet('POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: FEATURE })).body?.id
      const b = (await s.quiet('POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: FEATURE })).body?.id
      const v = versioned ? 'versioned' : 'unversioned'
      await s.send(`${v}: create, update, delete`, 'PATCH', `/api/resource/${layer}/feature/`, { body: [
        { geom: 'POINT (3 4)' }, { id: a, fields: { s: 'c' } }, { id: b, delete: true }] })
      await s.send(`${v}: item that changes nothing`, 'PATCH', `/api/resource/${layer}/feature/`, { body: [{ id: a }] })
      await s.send(`${v}: delete`, 'DELETE', `/api/resource/${layer}/feature/${a}`)
    }
  } },
  { name: 'versions', async run(s) {
    const layer = await s.layer(undefined, true)
    await s.quiet('POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: FEATURE })
    const epoch = (await s.quiet('GET', `/api/resource/${layer}`)).body?.feature_layer?.versioning?.epoch
    const fl = await s.quiet('GET', `/api/resource/${layer}`)
    s.steps.push({ label: 'feature_layer.versioning', status: fl.status, shape: shape(fl.body?.feature_layer?.versioning) })
    await s.send('version list', 'GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=asc`)
    await s.send('version list grouped', 'GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=asc&group=true`)
    await s.send('version 1', 'GET', `/api/resource/${layer}/feature/version/1`)
    await s.send('version out of range', 'GET', `/api/resource/${layer}/feature/version/99`)
    await s.send('epoch mismatch', 'GET', `/api/resource/${layer}/feature/version/?epoch=${epoch + 100}&order=asc`)
  } },
  { name: 'changes feed', async run(s) {
    const layer = await s.layer(undefined, true)
    await s.quiet('PATCH', `/api/resource/${layer}/feature/?dt_format=iso`, { body: [FEATURE, FEATURE] })
    const epoch = (await s.quiet('GET', `/api/resource/${layer}`)).body?.feature_layer?.versioning?.epoch
    const check = await s.send('check', 'GET', `/api/resource/${layer}/feature/changes/check?epoch=${epoch}&initial=0`)
    let url = check.body?.fetch as string | undefined
    for (let page = 0; url && page < 5; page++) {
      const res = await s.send(`fetch page ${page}`, 'GET', url.replace(/^https?:\/\/[^/]+/, ''))
      const last = Array.isArray(res.body) ? res.body[res.body.length - 1] : undefined
      url = last?.action === 'continue' ? last.url : undefined
    }
    const latest = (await s.quiet('GET', `/api/resource/${layer}`)).body?.feature_layer?.versioning?.latest
    await s.send('check when current', 'GET', `/api/resource/${layer}/feature/changes/check?epoch=${epoch}&initial=${latest}`)
    await s.send('epoch required', 'GET', `/api/resource/${layer}/feature/changes/check?initial=1`)
    await s.send('out of range', 'GET', `/api/resource/${layer}/feature/changes/check?epoch=${epoch}&initial=99`)
    await s.send('invalid range', 'GET', `/api/resource/${layer}/feature/changes/check?epoch=${epoch}&initial=2&target=1`)
  } },
  { name: 'transactions', async run(s) {
    const layer = await s.layer(undefined, true)
    const res = (await s.quiet('GET', `/api/resource/${layer}`)).body
    const epoch = res?.feature_layer?.versioning?.epoch
    const fieldId = res?.feature_layer?.fields?.find((f: { keyname: string }) => f.keyname === 's')?.id
    const col = `/api/resource/${layer}/feature/transaction/`
    await s.send('start without epoch', 'POST', col, { body: {} })
    const tid = (await s.send('start', 'POST', col, { body: { epoch } })).body?.id
    await s.send('put', 'PUT', `${col}${tid}`, { body: [[1, { action: 'feature.create', geom: pointWkb(1, 2), fields: [[fieldId, 'x']] }]] })
    await s.send('results before commit', 'GET', `${col}${tid}`)
    await s.send('commit', 'POST', `${col}${tid}`)
    await s.send('results', 'GET', `${col}${tid}`)
    await s.send('unknown transaction', 'GET', `${col}999999`)
  } },
  { name: 'errors', async run(s) {
    await s.send('wrong password', 'GET', '/api/component/auth/current_user', { auth: { login: 'administrator', password: 'wrong-password' } })
    await s.send('bad auth header', 'GET', '/api/resource/0', { auth: 'guest', headers: { authorization: 'Basic !!!' } })
    await s.send('login, wrong password', 'POST', '/api/component/auth/login', { auth: 'guest', body: { login: 'administrator', password: 'nope' } })
    await s.send('guest where a user is required', 'GET', '/api/component/auth/current_user?require_authenticated=true', { auth: 'guest' })
    await s.send('guest profile', 'GET', '/api/component/auth/profile', { auth: 'guest' })
    await s.send('guest create', 'POST', '/api/resource/', { auth: 'guest', body: { resource: { cls: 'resource_group',
      parent: { id: s.parent }, display_name: s.name('guest') } } })
    const body = { resource: { cls: 'resource_group', parent: { id: s.parent }, display_name: s.name('twice') } }
    await s.quiet('POST', '/api/resource/', { body })
    await s.send('duplicate display name', 'POST', '/api/resource/', { body })
    await s.send('root delete', 'DELETE', '/api/resource/0')
    await s.send('root delete as guest', 'DELETE', '/api/resource/0', { auth: 'guest' })
    await s.send('resource not found', 'GET', '/api/resource/99999999')
    await s.send('malformed JSON', 'POST', '/api/resource/', { raw: '{"not json', headers: { 'content-type': 'application/json' } })
    await s.send('unknown class', 'POST', '/api/resource/', { body: { resource: { cls: 'no_such_class', parent: { id: s.parent }, display_name: s.name('x') } } })
    await s.send('guest reads the root', 'GET', '/api/resource/0', { auth: 'guest' })
  } },
  { name: 'exports', async run(s) {
    const layer = await s.layer(undefined, false)
    await s.quiet('POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: FEATURE })
    const q = (f: string) => `/api/resource/${layer}/export?format=${f}&srs=4326&zipped=false`
    await s.send('GeoJSON', 'GET', q('GeoJSON'), {}, geojsonShape)
    await s.send('GPKG (fid=ngw_id), read by ogrinfo', 'GET', `${q('GPKG')}&fid=ngw_id`, {}, gpkgShape)
    await s.send('CSV', 'GET', q('CSV'), {}, csvShape)
  } },
]

const SETS: Record<string, Scenario[]> = { sync: SYNC, 'webmap-wms': webmapWmsScenarios }

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const set = args[0]?.startsWith('--set=') ? args.shift()!.slice('--set='.length) : 'sync'
  const [originalUrl, ourUrl] = args
  const scenarios = SETS[set]
  if (!originalUrl || !scenarios) {
    console.log(`Usage: npm run compare -- [--set=${Object.keys(SETS).join('|')}] <original url> [our url]`)
    return
  }
  await compareServers(scenarios, originalUrl, ourUrl)
}

main().then(() => process.exit(0), (err) => {
  console.log(`compare stopped: ${(err as Error).stack ?? err}`)
  process.exit(0)
})
