/**
 * Moving a team's data (issue 23 item 4, sw/host/node-migrate.ts): a data folder made by the Node
 * host on SQLite through the API, copied into a fresh PostgreSQL schema, then a Node host on
 * PostgreSQL answers as the SQLite one did. A failed copy leaves the target as it was and the
 * source folder byte for byte.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Api } from './harness.ts'
import { base64 } from './harness.ts'
import { startNodeApi } from './node-client.ts'
import { postgresData } from '../../sw/host/node.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { migrateFolder } from '../../sw/host/node-migrate.ts'
import { createLayer } from './cases/feature.ts'
import { createUser } from './cases/permissions.ts'
import { newGroup, uploadFile } from './cases/ingest.ts'
import { ensureQms } from './cases/catalogue-data.ts'
import { cluster } from '../pg/shared.ts'
import { hashFolder, stop } from './migrate-shared.ts'

/** Status and body of GET `path`, the host's own address (absolute URLs of the catalogue) left out. */
async function answer(api: Api, base: string, path: string) {
  const r = await api.request('GET', path)
  return [r.status, r.body === undefined ? r.text : JSON.parse(JSON.stringify(r.body).replaceAll(base, 'BASE'))]
}

describe('npm run migrate: a SQLite data folder into PostgreSQL', () => {
  let dir: string
  let layer: number
  let fid: number
  let aid: number
  let user: Awaited<ReturnType<typeof createUser>>
  const photo = new Uint8Array(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256))
  /** The answers the SQLite host gave, by path. */
  const before = new Map<string, unknown[]>()
  const PATHS: string[] = []

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-migrate-src-'))
    const host = await startNodeApi({ dataDir: dir })
    const api = host.api
    user = await createUser(api, expect)
    const group = await api.request('POST', '/api/component/auth/group/', { body: { keyname: 'crew', display_name: 'Crew', members: [user.id] } })
    expect(group.status).toBe(201)
    layer = await createLayer(api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }], 3857, true)
    const perm = await api.request('PUT', `/api/resource/${layer}`, { body: { resource: { permissions: [
      { action: 'allow', principal: { id: user.id }, scope: 'data', permission: 'read', identity: '', propagate: true }] } } })
    expect(perm.status).toBe(200)
    const made = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [
      { geom: 'POINT (1 2)', fields: { name: 'a', n: 1 } }, { geom: 'POINT (3 4)', fields: { name: 'b', n: 2 } }] })
    expect(made.status).toBe(200)
    fid = made.body[0].id
    expect((await api.request('PUT', `/api/resource/${layer}/feature/${fid}`, { body: { fields: { name: 'a2' } } })).status).toBe(200)
    const up = await api.request('POST', '/api/component/file_upload/', { form: [{ name: 'file', filename: 'p.bin', type: 'application/octet-stream', base64: base64(photo) }] })
    const att = await api.request('POST', `/api/resource/${layer}/feature/${fid}/attachment/`, { body: { file_upload: up.body.upload_meta[0] } })
    expect(att.status).toBe(200)
    aid = att.body.id
    // A file bucket in a group, and the geoservice catalogue.
    const parent = await newGroup(api, expect)
    const notes = await uploadFile(api, expect, 'notes.txt', 'field notes\n')
    const bucket = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'file_bucket', parent: { id: parent },
      display_name: 'Bucket' }, file_bucket: { files: [notes] } } })
    expect(bucket.status).toBe(201)
    await ensureQms(api)
    PATHS.push(`/api/resource/${bucket.body.id}`, `/api/resource/${bucket.body.id}/file/notes.txt`, `/api/resource/?parent=${parent}`,
      '/api/resource/0', '/api/v1/geoservices/?limit=3&ordering=-id', '/api/v1/geoservice_status/?limit=3', '/api/v1/icons/?limit=3')
    PATHS.push(`/api/resource/${layer}`, `/api/resource/${layer}/feature/`, `/api/resource/${layer}/feature/?version=2`,
      `/api/resource/${layer}/feature/${fid}/attachment/`, '/api/resource/?parent=0', `/api/component/auth/user/${user.id}`,
      '/api/component/auth/group/?brief=true')
    for (const p of PATHS) before.set(p, await answer(api, host.base, p))
    await stop(host)
  }, 60_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('copies users, groups, the tree with its permissions, a versioned layer with an attachment; a host on PostgreSQL answers alike', async () => {
    const url = await (await cluster()).database('moved')
    const lines: string[] = []
    const srcHash = hashFolder(dir)
    const { ok, checks } = await migrateFolder({ from: dir, to: url, log: (l) => lines.push(l) })
    expect(lines.filter((l) => l.startsWith("DIFFERS"))).toEqual([])
    expect(ok).toBe(true)
    expect(checks.map((c) => c.what)).toEqual(expect.arrayContaining(['principal', 'resource', `layer ${layer} features`, 'blobs']))
    expect(lines).toContain(`layer ${layer}: ${lines.find((l) => l.startsWith(`layer ${layer}: feature `))?.slice(`layer ${layer}: `.length)}`)
    expect(hashFolder(dir)).toBe(srcHash)
    const host = await startNodeApi({ app: { data: postgresData(url, { maxConnections: 4 }) } })
    try {
      for (const p of PATHS) expect([p, await answer(host.api, host.base, p)]).toEqual([p, before.get(p)])
      const bytes = await host.api.request('GET', `/api/resource/${layer}/feature/${fid}/attachment/${aid}/download`)
      expect(bytes.status).toBe(200)
      expect(bytes.bodyBase64).toBe(base64(photo))
      // The user logs in with the old password and reads the layer through the copied permission.
      const me = await host.api.request('GET', '/api/component/auth/current_user', { auth: user.auth })
      expect(me.body.keyname).toBe(user.keyname)
      // New ids continue past the copied ones.
      const next = await host.api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT (5 6)', fields: { name: 'c' } } })
      expect(next.body.id).toBeGreaterThan(fid + 1)
    } finally { await stop(host) }
  }, 120_000)

  it('refuses a target that holds data (without --replace), changing nothing on either side', async () => {
    const url = await (await cluster()).database('full')
    expect((await migrateFolder({ from: dir, to: url, log: () => {} })).ok).toBe(true)
    const srcHash = hashFolder(dir)
    await expect(migrateFolder({ from: dir, to: url, log: () => {} })).rejects.toThrow(/already holds resources.*--replace/)
    expect(hashFolder(dir)).toBe(srcHash)
    expect((await migrateFolder({ from: dir, to: url, replace: true, log: () => {} })).ok).toBe(true)
  }, 120_000)

  it('a failure mid-way leaves the target empty and the source byte-identical', async () => {
    const url = await (await cluster()).database('fails')
    // A target that refuses a write: blobs may not be stored (after the tables and layers were copied).
    const c = await (await cluster()).client('outpost_shared')
    c.on('error', () => undefined)
    const schema = /search_path%3D([a-z_0-9]+)/.exec(url)![1]
    const port = await (await import('../../sw/postgres/port.ts')).openPostgresData(url)
    await port.close()
    await c.query(`CREATE FUNCTION ${schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
      CREATE TRIGGER refuse BEFORE INSERT ON ${schema}.outpost_blob FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse()`)
    const srcHash = hashFolder(dir)
    await expect(migrateFolder({ from: dir, to: url, log: () => {} })).rejects.toThrow(/disk full/)
    expect(hashFolder(dir)).toBe(srcHash)
    const left = await c.query(`SELECT (SELECT count(*) FROM ${schema}.resource) AS r, (SELECT count(*) FROM ${schema}.principal) AS p,
      (SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename ~ '^layer_[0-9]') AS l`, [schema])
    await c.end()
    expect(left.rows[0]).toEqual({ r: '0', p: '0', l: '0' })
  }, 120_000)

  it('refuses a folder a running host holds, in one line, having written neither side', async () => {
    const url = await (await cluster()).database('busy')
    const host = await startNodeApi({ dataDir: dir })
    try {
      await expect(migrateFolder({ from: dir, to: url, log: () => {} })).rejects.toThrow(/^The data folder .* is in use by a running Outpost host \(pid \d+ on .*\): stop it, then move its data\.$/)
    } finally { await stop(host) }
    const c = await (await cluster()).client('outpost_shared')
    const schema = /search_path%3D([a-z_0-9]+)/.exec(url)![1]
    const tables = await c.query(`SELECT count(*) AS n FROM pg_tables WHERE schemaname = $1`, [schema])
    await c.end()
    expect(tables.rows[0]).toEqual({ n: '0' })
  }, 60_000)

  it('npm run migrate: progress per table and layer, the checks, exit 0; a bad URL exits 1 in one line without the password', async () => {
    const url = await (await cluster()).database('cli')
    const run = (args: string[]) => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      let err = ''
      proc.stdout.on('data', (b: Buffer) => { out += b.toString() })
      proc.stderr.on('data', (b: Buffer) => { err += b.toString() })
      const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000)
      proc.once('exit', (code) => { clearTimeout(timer); resolve({ code, out, err }) })
    })
    const ok = await run(['--from', dir, '--to', url])
    expect([ok.code, ok.err]).toEqual([0, ''])
    const lines = ok.out.trim().split('\n')
    expect(lines).toContain('principal: 8 rows')
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^layer ${layer}: feature 2, .*feature_history \\d+`)))
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ok layer ${layer} features: 2 / 2 rows, checksum (\\w+) / \\1$`)))
    expect(lines).toContainEqual(expect.stringMatching(/^ok blobs: \d+ \/ \d+ rows/))
    expect(lines.at(-1)).toBe('Copied and verified.')
    const bad = await run(['--from', dir, '--to', 'mysql://me:s3cret@127.0.0.1/db'])
    expect([bad.code, bad.err.trim().split('\n').length, bad.out + bad.err]).toEqual([1, 1, expect.not.stringContaining('s3cret')])
  }, 120_000)

  it('a target that stores something else than it was given is caught by the verification (ok false, the table named)', async () => {
    const url = await (await cluster()).database('differs')
    const port = await (await import('../../sw/postgres/port.ts')).openPostgresData(url)
    await port.close()
    const c = await (await cluster()).client('outpost_shared')
    c.on('error', () => undefined)
    const schema = /search_path%3D([a-z_0-9]+)/.exec(url)![1]
    // A target that alters a display name as it stores it.
    await c.query(`CREATE FUNCTION ${schema}.alter() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.display_name := NEW.display_name || '!'; RETURN NEW; END $$;
      CREATE TRIGGER alter BEFORE INSERT ON ${schema}.principal FOR EACH ROW WHEN (NEW.keyname = 'crew') EXECUTE FUNCTION ${schema}.alter()`)
    await c.end()
    const lines: string[] = []
    const { ok, checks } = await migrateFolder({ from: dir, to: url, log: (l) => lines.push(l) })
    expect(ok).toBe(false)
    expect(checks.filter((x) => !x.ok).map((x) => x.what)).toEqual(['principals (read through the port)', 'principal'])
    expect(lines).toContainEqual(expect.stringMatching(/^DIFFERS principal: 8 \/ 8 rows, checksum (\w+) \/ (?!\1)\w+$/))
  }, 60_000)

  it('a host already running on the (fresh) target answers with the moved data on its next request', async () => {
    const url = await (await cluster()).database('running')
    const host = await startNodeApi({ app: { data: postgresData(url, { maxConnections: 4 }) } })
    try {
      const path = `/api/resource/${layer}`
      expect((await host.api.request('GET', path)).status).toBe(404)
      // What the host has read (and may keep in its caches) before the move.
      for (const p of ['/api/resource/0', '/api/resource/?parent=0', '/api/v1/geoservices/?limit=3&ordering=-id']) await host.api.request('GET', p)
      expect((await host.api.request('GET', '/api/component/auth/group/?brief=true')).body).not.toEqual(before.get('/api/component/auth/group/?brief=true')?.[1])
      expect((await migrateFolder({ from: dir, to: url, log: () => {} })).ok).toBe(true)
      for (const p of [path, '/api/component/auth/group/?brief=true', `/api/resource/${layer}/feature/`, '/api/resource/0',
        '/api/resource/?parent=0', '/api/v1/geoservices/?limit=3&ordering=-id']) {
        expect([p, await answer(host.api, host.base, p)]).toEqual([p, before.get(p)])
      }
    } finally { await stop(host) }
  }, 60_000)
})
