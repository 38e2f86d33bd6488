/**
 * A throwaway S3-compatible object store for the tests (the blob store of `--blobs`,
 * sw/host/node-s3-blobs.ts): s3rver (npm), a Node implementation of S3's REST API that keeps
 * objects in a temporary folder, listening on 127.0.0.1 on a free port, with one bucket.
 * It speaks the calls we use (PUT/GET/DELETE object, ListObjectsV2, multipart uploads) and
 * checks that requests carry a SigV4 Authorization with a known key id (S3RVER), though not
 * the signature itself (s3rver does not compute SigV4): the signing is aws4fetch's, tested by
 * its authors against AWS.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import S3rver from 's3rver'
import type { S3Config } from '../../sw/host/node-s3-blobs.ts'

export interface S3Server {
  endpoint: string
  /** A configuration of the bucket under `prefix` with the server's key. */
  config(prefix?: string): S3Config
  /** The `--blobs` URL of the same (credentials travel in the environment: `env`). */
  url(prefix?: string): string
  env: Record<string, string>
  stop(): Promise<void>
}

export const S3_BUCKET = 'outpost-test'

export async function startS3(): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'outpost-s3-'))
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: S3_BUCKET }] })
  const addr = await server.run() as AddressInfo
  const endpoint = `http://127.0.0.1:${addr.port}`
  const creds = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }
  let stopped = false
  return {
    endpoint,
    config: (prefix = 'team/') => ({ endpoint, bucket: S3_BUCKET, prefix, region: 'us-east-1', ...creds }),
    url: (prefix = 'team') => `s3://${S3_BUCKET}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`,
    env: { OUTPOST_S3_ACCESS_KEY_ID: creds.accessKeyId, OUTPOST_S3_SECRET_ACCESS_KEY: creds.secretAccessKey },
    async stop() {
      if (stopped) return
      stopped = true
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
