/**
 * Blobs in an S3-compatible object store (issue 23 item 1; sw/host/node-s3-blobs.ts,
 * docs/team-server.md "Blobs in an object store"), against a real S3 server (s3rver,
 * test/s3/server.ts) and a real PostgreSQL (test/pg): the store's own calls, then the team's
 * server on PostgreSQL with `--blobs` — an upload made into an attachment and a bucket file,
 * read back and exported through another process on the same database and bucket, nothing of it
 * in the database's own blob table, and the objects gone once the resources are deleted.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { unzipSync } from 'fflate'
import { httpApi, startNodeApi } from './node-client.ts'
import { kill, startHost, type Host } from './node-process.ts'
import { base64, expectError } from './harness.ts'
import { createLayer } from './cases/feature.ts'
import { newGroup, uploadFile } from './cases/ingest.ts'
import { postgresData } from '../../sw/host/node.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { parseBlobsUrl, s3Blobs } from '../../sw/host/node-s3-blobs.ts'
import { migrateFolder } from '../../sw/host/node-migrate.ts'
import { cluster } from '../pg/shared.ts'
import { startS3, type S3Server } from '../s3/server.ts'

const stop = async (h: { server: Server; app: OutpostApp }) => {
  await new Promise<void>((resolve) => h.server.close(() => resolve()))
  await (await h.app.services()).data.close()
}

async function* chunksOf(bytes: Uint8Array, size: number, fail = false) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size)
  if (fail) throw new Error('the client went away')
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
/** Deterministic bytes that do not compress or repeat within a part. */
const bytesOf = (n: number, seed = 1) => {
  const out = new Uint8Array(n)
  let x = seed
  for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) >>> 0; out[i] = x >>> 24 }
  return out
}

let s3: S3Server
beforeAll(async () => { s3 = await startS3() })
afterAll(() => s3.stop())

describe('the S3 blob store (s3rver)', () => {
  it('puts, gets, lists and deletes; a stream beyond one part goes up in parts; a failed stream leaves the old object', async () => {
    const blobs = s3Blobs(s3.config('unit/'), { partSize: 5 * 2 ** 20 })
    await blobs.check()
    await blobs.putBlob('a-1', new Uint8Array([1, 2, 3]))
    await blobs.putBlob('a-2', new Uint8Array())
    expect(await blobs.getBlob('a-1')).toEqual(new Uint8Array([1, 2, 3]))
    expect(await blobs.getBlob('a-2')).toEqual(new Uint8Array())
    expect(await blobs.getBlob('nope')).toBeUndefined()
    // 12 MiB in 64 KiB chunks: three parts of 5, 5 and 2 MiB.
    const big = bytesOf(12 * 2 ** 20)
    expect(await blobs.putBlobStream('b-big', chunksOf(big, 65536))).toBe(big.length)
    expect(sha((await blobs.getBlob('b-big'))!)).toBe(sha(big))
    // A stream that fails after two parts went up: the upload is aborted, the object as before.
    await expect(blobs.putBlobStream('b-big', chunksOf(bytesOf(11 * 2 ** 20, 2), 65536, true))).rejects.toThrow(/went away/)
    expect(sha((await blobs.getBlob('b-big'))!)).toBe(sha(big))
    await expect(blobs.putBlobStream('a-1', chunksOf(new Uint8Array([9, 9]), 1, true))).rejects.toThrow(/went away/)
    expect(await blobs.getBlob('a-1')).toEqual(new Uint8Array([1, 2, 3]))
    expect(await blobs.putBlobStream('a-3', chunksOf(new Uint8Array([7, 8]), 1))).toBe(2)
    expect(await blobs.listBlobs('')).toEqual(['a-1', 'a-2', 'a-3', 'b-big'])
    expect(await blobs.listBlobs('a-')).toEqual(['a-1', 'a-2', 'a-3'])
    // Another prefix of the same bucket is another store.
    expect(await s3Blobs(s3.config('other/')).listBlobs('')).toEqual([])
    for (const id of ['a-1', 'a-2', 'a-3', 'b-big']) await blobs.deleteBlob(id)
    await blobs.deleteBlob('never-there')
    expect(await blobs.listBlobs('')).toEqual([])
  }, 60_000)

  it('--blobs URLs: bucket, prefix, endpoint and region read; a wrong one or missing keys named in one line without the key', () => {
    const env = { OUTPOST_S3_ACCESS_KEY_ID: 'id', OUTPOST_S3_SECRET_ACCESS_KEY: 'sekrit' }
    expect(parseBlobsUrl('s3://team-files/outpost/blobs?endpoint=http://10.0.0.5:9000&region=eu-west-1', env)).toEqual({
      endpoint: 'http://10.0.0.5:9000', bucket: 'team-files', prefix: 'outpost/blobs/', region: 'eu-west-1', accessKeyId: 'id',
      secretAccessKey: 'sekrit', sessionToken: undefined })
    expect(parseBlobsUrl('s3://team-files', { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b', AWS_REGION: 'eu-north-1', AWS_SESSION_TOKEN: 't' }))
      .toMatchObject({ endpoint: 'https://s3.eu-north-1.amazonaws.com', prefix: '', region: 'eu-north-1', sessionToken: 't' })
    expect(() => parseBlobsUrl('http://team-files/x', env)).toThrow(/^Invalid --blobs 'http:\/\/team-files\/x': not an s3:\/\/ URL/)
    expect(() => parseBlobsUrl('s3://Team_Files/x', env)).toThrow(/'team_files' is not a bucket name|'Team_Files' is not a bucket name/)
    expect(() => parseBlobsUrl('s3://team-files/x?endpoint=ftp://h', env)).toThrow(/endpoint 'ftp:\/\/h' is not an http\(s\)/)
    expect(() => parseBlobsUrl('s3://team-files/x', {})).toThrow(/^--blobs needs credentials: OUTPOST_S3_ACCESS_KEY_ID/)
  })
})

describe('the team\'s server on PostgreSQL with its blobs in S3', () => {
  let url: string
  let a: Awaited<ReturnType<typeof startNodeApi>>
  let b: Host
  let dir: string
  const objects = (prefix = '') => s3Blobs(s3.config('team/')).listBlobs(prefix)
  /** Rows of the database's own blob table: none, with --blobs. */
  const rowsInDb = async () => {
    const c = await (await cluster()).client('outpost_shared')
    const schema = /search_path%3D([a-z_0-9]+)/.exec(url)![1]
    try { return Number((await c.query(`SELECT count(*) AS n FROM ${schema}.outpost_blob`)).rows[0].n) } finally { await c.end() }
  }

  beforeAll(async () => {
    url = await (await cluster()).database('s3')
    a = await startNodeApi({ app: { data: postgresData(url, { maxConnections: 4, blobs: s3.config('team/') }) } })
    dir = mkdtempSync(join(tmpdir(), 'outpost-s3-key-'))
    // The second process: the command line's --blobs, its keys from the environment.
    Object.assign(process.env, s3.env)
    b = await startHost(dir, ['--database', url, '--blobs', s3.url('team')])
  }, 60_000)
  afterAll(async () => {
    await kill(b)
    await stop(a)
    rmSync(dir, { recursive: true, force: true })
  })

  it('upload → attachment → download and export through the other process; the objects in the bucket, none in the database; deleted with the resource', async () => {
    const other = httpApi(b.base)
    const layer = await createLayer(a.api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }])
    const fid = (await a.api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT (1 2)', fields: { name: 'well' } } })).body.id
    // A small upload (one PUT) through one process, a 9 MiB one (a multipart upload) through the other.
    const photo = bytesOf(3000, 3)
    const big = bytesOf(9 * 2 ** 20, 4)
    const up1 = await uploadFile(a.api, expect, 'photo.bin', photo)
    const up2 = (await other.request('PUT', '/api/component/file_upload/', { bytesBase64: base64(big),
      headers: { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="big.bin"' } }))
    expect(up2.status).toBe(201)
    const att1 = await other.request('POST', `/api/resource/${layer}/feature/${fid}/attachment/`, { body: { file_upload: up1 } })
    const att2 = await a.api.request('POST', `/api/resource/${layer}/feature/${fid}/attachment/`, { body: { file_upload: up2.body } })
    expect([att1.status, att2.status]).toEqual([200, 200])
    // Each process reads what the other wrote.
    const got1 = await other.request('GET', `/api/resource/${layer}/feature/${fid}/attachment/${att1.body.id}/download`)
    expect(got1.status).toBe(200)
    expect(got1.bodyBase64).toBe(base64(photo))
    const got2 = await a.api.request('GET', `/api/resource/${layer}/feature/${fid}/attachment/${att2.body.id}/download`)
    expect(got2.status).toBe(200)
    expect(sha(new Uint8Array(Buffer.from(got2.bodyBase64!, 'base64')))).toBe(sha(big))
    // The layer exports through the other process.
    const exp = await other.request('GET', `/api/resource/${layer}/export?format=GPKG`)
    expect([exp.status, exp.headers['content-type']]).toEqual([200, 'application/zip'])
    expect(Object.keys(unzipSync(new Uint8Array(Buffer.from(exp.bodyBase64!, 'base64'))))).toEqual([expect.stringMatching(/\.gpkg$/)])
    // A file bucket's file (chunked blobs) and its zip export.
    const notes = await uploadFile(other, expect, 'notes.txt', 'field notes\n')
    const bucket = await a.api.request('POST', '/api/resource/', { body: { resource: { cls: 'file_bucket', parent: { id: await newGroup(a.api, expect) },
      display_name: 'Bucket' }, file_bucket: { files: [notes] } } })
    expect(bucket.status).toBe(201)
    const zip = await other.request('GET', `/api/resource/${bucket.body.id}/export`)
    expect([zip.status, zip.headers['content-type']]).toEqual([200, 'application/zip'])
    expect(new TextDecoder().decode(unzipSync(new Uint8Array(Buffer.from(zip.bodyBase64!, 'base64')))['notes.txt'])).toBe('field notes\n')

    // Every byte is in the bucket, none in the database.
    expect(await rowsInDb()).toBe(0)
    expect(await objects(`attachment-${layer}-`)).toHaveLength(2)
    expect(await objects('file-')).toHaveLength(1)
    // Deleting the layer (through one process) deletes its attachments' objects; the bucket's likewise.
    expect((await other.request('DELETE', `/api/resource/${layer}`)).status).toBe(200)
    expect((await a.api.request('DELETE', `/api/resource/${bucket.body.id}`)).status).toBe(200)
    expect(await objects(`attachment-${layer}-`)).toEqual([])
    expect(await objects('file-')).toEqual([])
    expect((await a.api.request('GET', `/api/resource/${layer}/feature/${fid}/attachment/${att1.body.id}/download`)).status).toBe(404)
  }, 120_000)

  it('a store that stops answering is a 503 with the JSON error body, and changes nothing', async () => {
    const gone = await startS3()
    const host = await startNodeApi({ app: { data: postgresData(await (await cluster()).database('s3gone'), { maxConnections: 2, blobs: gone.config() }) } })
    try {
      const layer = await createLayer(host.api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }])
      const fid = (await host.api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT (1 2)', fields: { name: 'x' } } })).body.id
      const up = await uploadFile(host.api, expect, 'p.bin', bytesOf(100))
      const att = await host.api.request('POST', `/api/resource/${layer}/feature/${fid}/attachment/`, { body: { file_upload: up } })
      expect(att.status).toBe(200)
      await gone.stop()
      const res = await host.api.request('GET', `/api/resource/${layer}/feature/${fid}/attachment/${att.body.id}/download`)
      expectError(expect, res, 503, 'nextgisweb.core.exception.OperationalError')
      expect(res.body.message).toMatch(/^The blob store s3:\/\/outpost-test\/team\/ at http:\/\/127\.0\.0\.1:\d+ does not answer/)
      const up2 = await host.api.request('POST', '/api/component/file_upload/', { form: [{ name: 'file', filename: 'q.bin', base64: base64(bytesOf(10)) }] })
      expect(up2.status).toBe(503)
      // The feature and its attachment's record are as they were.
      expect((await host.api.request('GET', `/api/resource/${layer}/feature/${fid}/attachment/`)).body).toHaveLength(1)
    } finally { await stop(host) }
  }, 60_000)

  it('--blobs on the command line: without --database, with a bad URL or an unreachable store, the start stops in one line (exit 1)', async () => {
    const d = mkdtempSync(join(tmpdir(), 'outpost-s3-cli-'))
    try {
      await expect(startHost(d, ['--blobs', s3.url()])).rejects.toThrow(/--blobs goes with --database/)
      await expect(startHost(d, ['--database', url, '--blobs', 's3://x'])).rejects.toThrow(/Invalid --blobs 's3:\/\/x': 'x' is not a bucket name/)
      // $OUTPOST_BLOBS when the option is not given.
      process.env.OUTPOST_BLOBS = 's3://y'
      try {
        await expect(startHost(d, ['--database', url])).rejects.toThrow(/Invalid --blobs 's3:\/\/y': 'y' is not a bucket name/)
      } finally { delete process.env.OUTPOST_BLOBS }
      // A port nothing listens on: one that was free a moment ago.
      const free = await new Promise<number>((resolve) => { const srv = createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as AddressInfo).port
        srv.close(() => resolve(port))
      }) })
      await expect(startHost(d, ['--database', url, '--blobs', `s3://outpost-test/t?endpoint=http://127.0.0.1:${free}`])).rejects
        .toThrow(new RegExp(`exited \\(1\\)[^]*The blob store s3://outpost-test/t/ at http://127\\.0\\.0\\.1:${free} does not answer: .*ECONNREFUSED`))
    } finally { rmSync(d, { recursive: true, force: true }) }
  }, 60_000)
})

describe('npm run migrate --blobs: a data folder moved into PostgreSQL with its blobs in S3', () => {
  it('the blobs go to the bucket and are verified there; a failure after them deletes them again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-s3-migrate-'))
    try {
      const src = await startNodeApi({ dataDir: dir })
      const layer = await createLayer(src.api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }])
      const fid = (await src.api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT (1 2)', fields: { name: 'w' } } })).body.id
      const photo = bytesOf(5000, 7)
      const att = await src.api.request('POST', `/api/resource/${layer}/feature/${fid}/attachment/`,
        { body: { file_upload: await uploadFile(src.api, expect, 'p.bin', photo) } })
      expect(att.status).toBe(200)
      await stop(src)
      await src.app.services().then((s) => s.platform.store.close?.())

      // Refused after the blobs went up (the last step moves the change counters): nothing is left in the bucket.
      const failing = await (await cluster()).database('s3mfail')
      const port = await (await import('../../sw/postgres/port.ts')).openPostgresData(failing)
      await port.close()
      const c = await (await cluster()).client('outpost_shared')
      const schema = /search_path%3D([a-z_0-9]+)/.exec(failing)![1]
      await c.query(`CREATE FUNCTION ${schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no more'; END $$;
        CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON ${schema}.outpost_change FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse()`)
      await c.end()
      const said: string[] = []
      await expect(migrateFolder({ from: dir, to: failing, blobs: s3.config('fail/'), log: (l) => said.push(l) })).rejects.toThrow(/no more/)
      expect(said).toContainEqual(expect.stringMatching(/^blobs: [1-9]\d* /))
      expect(await s3Blobs(s3.config('fail/')).listBlobs('')).toEqual([])

      const url = await (await cluster()).database('s3moved')
      const lines: string[] = []
      const { ok, checks } = await migrateFolder({ from: dir, to: url, blobs: s3.config('moved/'), log: (l) => lines.push(l) })
      expect(lines.filter((l) => l.startsWith('DIFFERS'))).toEqual([])
      expect(ok).toBe(true)
      expect(checks.find((x) => x.what === 'blobs')).toMatchObject({ ok: true })
      expect(lines).toContainEqual(expect.stringMatching(/^blobs: \d+ \(\d+ bytes\) into s3:\/\/outpost-test\/moved\/ at http/))
      expect(await s3Blobs(s3.config('moved/')).listBlobs(`attachment-${layer}-`)).toHaveLength(1)
      const host = await startNodeApi({ app: { data: postgresData(url, { maxConnections: 2, blobs: s3.config('moved/') }) } })
      try {
        const got = await host.api.request('GET', `/api/resource/${layer}/feature/${fid}/attachment/${att.body.id}/download`)
        expect([got.status, got.bodyBase64]).toEqual([200, base64(photo)])
      } finally { await stop(host) }
      const c2 = await (await cluster()).client('outpost_shared')
      const s2 = /search_path%3D([a-z_0-9]+)/.exec(url)![1]
      try { expect((await c2.query(`SELECT count(*) AS n FROM ${s2}.outpost_blob`)).rows[0].n).toBe('0') } finally { await c2.end() }
    } finally { rmSync(dir, { recursive: true, force: true }) }
  }, 120_000)
})
