/**
 * @module host/node-s3-blobs
 * Blobs (uploads, attachments, raster and bucket files) in an S3-compatible object store, for
 * the team's server on PostgreSQL (issue 23 item 1; docs/team-server.md "Blobs in an object
 * store"): `--blobs s3://bucket/prefix?endpoint=http://…&region=…`. Every process of the team's
 * server reads and writes the one bucket, so each sees every blob; the database keeps only which
 * blob a row names. Requests are signed (SigV4) by aws4fetch over `fetch`, nothing else: the S3
 * API's five calls we need are small enough that a whole SDK would only add weight.
 * - A blob is one object, `<prefix><id>`. A PUT or a completed multipart upload replaces an
 *   object whole, so a reader sees the old bytes or the new, never a mix (the port's atomic write).
 * - Streamed writes (uploads of any size) go up as a multipart upload in parts of 8 MiB as they
 *   arrive, one part held in memory at a time; a stream shorter than one part is one PUT. A
 *   failed stream aborts its upload: the object is as it was.
 * - Reads fetch the object whole, as the port's `getBlob` returns it (large files are kept as
 *   256 KiB chunks by files/service.ts, so a download reads one chunk at a time).
 * - An unfinished multipart upload (a process killed mid-upload) is not an object and is not
 *   listed: the bucket's lifecycle rule `AbortIncompleteMultipartUpload` removes it (documented).
 * - A store that cannot be reached, or answers 5xx after aws4fetch's retries, or refuses our
 *   credentials, is a 503 with the JSON error body: the request changed nothing of ours.
 */
import { AwsClient } from 'aws4fetch'
import { XMLParser } from 'fast-xml-parser'
import type { BlobStore } from '../port/port.ts'
import { operationalError } from '../core/error.ts'

/** Bytes per part of a multipart upload (S3 asks at least 5 MiB for every part but the last). */
export const S3_PART = 8 * 2 ** 20

export interface S3Config {
  /** Where requests go: `http(s)://host[:port]`, path-style (`/<bucket>/<key>`). */
  endpoint: string
  bucket: string
  /** Prepended to every blob id ('' or ending in '/'). */
  prefix: string
  region: string
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
}

const USAGE = 's3://bucket[/prefix]?endpoint=http(s)://host:port&region=…'

/** `url` with the credentials it may carry (`?access_key_id=`…) hidden, for messages. */
const redact = (url: string) => url.replace(/([?&](secret_access_key|access_key_id|session_token)=)[^&#]*/gi, '$1***')

/**
 * The store of `--blobs <url>` (or `OUTPOST_BLOBS`): `s3://bucket/prefix?endpoint=…&region=…`.
 * Without `endpoint`, AWS's own (`https://s3.<region>.amazonaws.com`). Credentials from
 * `OUTPOST_S3_ACCESS_KEY_ID` / `OUTPOST_S3_SECRET_ACCESS_KEY`, else `AWS_ACCESS_KEY_ID` /
 * `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`); region from the URL, else `AWS_REGION`,
 * `AWS_DEFAULT_REGION`, else us-east-1. Throws one line naming what is wrong.
 */
export function parseBlobsUrl(url: string, env: Record<string, string | undefined> = process.env): S3Config {
  let u: URL | undefined
  try { u = new URL(url) } catch { /* below */ }
  const bad = (why: string) => new Error(`Invalid --blobs '${redact(url)}': ${why} (expected ${USAGE}).`)
  if (!u || u.protocol !== 's3:') throw bad('not an s3:// URL')
  const bucket = u.hostname
  // S3's rules for bucket names: 3-63 of lowercase letters, digits, dots and hyphens.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw bad(`'${bucket}' is not a bucket name`)
  const path = decodeURIComponent(u.pathname).replace(/^\/+|\/+$/g, '')
  const region = u.searchParams.get('region') || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1'
  let endpoint = u.searchParams.get('endpoint') || `https://s3.${region}.amazonaws.com`
  let e: URL | undefined
  try { e = new URL(endpoint) } catch { /* below */ }
  if (!e || !['http:', 'https:'].includes(e.protocol) || (e.pathname !== '/' && e.pathname !== '')) throw bad(`endpoint '${endpoint}' is not an http(s)://host:port address`)
  endpoint = e.origin
  const accessKeyId = env.OUTPOST_S3_ACCESS_KEY_ID || env.AWS_ACCESS_KEY_ID
  const secretAccessKey = env.OUTPOST_S3_SECRET_ACCESS_KEY || env.AWS_SECRET_ACCESS_KEY
  if (!accessKeyId || !secretAccessKey) {
    throw new Error('--blobs needs credentials: OUTPOST_S3_ACCESS_KEY_ID and OUTPOST_S3_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).')
  }
  const sessionToken = env.OUTPOST_S3_ACCESS_KEY_ID ? undefined : env.AWS_SESSION_TOKEN || undefined
  return { endpoint, bucket, prefix: path ? `${path}/` : '', region, accessKeyId, secretAccessKey, sessionToken }
}

/** `config` as a line for messages and logs (no credentials). */
export const describeS3 = (c: S3Config) => `s3://${c.bucket}/${c.prefix} at ${c.endpoint}`

/** Path-style URL of `key` (each segment encoded; aws4fetch signs the same form). */
const keyUrl = (c: S3Config, key: string) => `${c.endpoint}/${c.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`

const xml = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (name) => name === 'Contents' || name === 'Part' })

/** One line of an S3 error answer: its `<Code>` and `<Message>`, or the status alone. */
async function s3Reason(res: Response): Promise<string> {
  const text = await res.text().catch(() => '')
  const e = (() => { try { return (xml.parse(text) as { Error?: { Code?: string; Message?: string } }).Error } catch { return undefined } })()
  return `${res.status}${e?.Code ? ` ${e.Code}` : ''}${e?.Message ? `: ${e.Message}` : ''}`
}

export interface S3Blobs extends BlobStore {
  /** A round trip to the bucket (an empty listing): at start, so a wrong address, bucket or key stops it in one line. */
  check(): Promise<void>
}

/** The blob store over the bucket of `config`. `fetch` is the global one: the operator's own endpoint, not a user's address. */
export function s3Blobs(config: S3Config, opts: { partSize?: number; retries?: number } = {}): S3Blobs {
  const partSize = opts.partSize ?? S3_PART
  const client = new AwsClient({ accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey,
    sessionToken: config.sessionToken, service: 's3', region: config.region, retries: opts.retries ?? 3 })
  const where = describeS3(config)

  /** One signed request; `ok` statuses are returned, anything else (and no answer) is a 503 saying why. */
  async function call(method: string, url: string, ok: number[], body?: Uint8Array | string): Promise<Response> {
    let res: Response
    try {
      res = await client.fetch(url, { method, body: body as BodyInit | undefined })
    } catch (err) {
      throw operationalError(`The blob store ${where} does not answer: ${(err as Error).cause instanceof Error
        ? ((err as Error).cause as Error).message : (err as Error).message}`, err)
    }
    if (ok.includes(res.status)) return res
    throw operationalError(`The blob store ${where} answered ${method} with ${await s3Reason(res)}`)
  }

  const objectUrl = (id: string) => keyUrl(config, config.prefix + id)

  async function put(id: string, data: Uint8Array): Promise<void> {
    await (await call('PUT', objectUrl(id), [200], data)).arrayBuffer()
  }

  /** A multipart upload of `first` and what follows from `rest`, in parts of `partSize`. */
  async function multipart(id: string, first: Uint8Array, rest: AsyncIterator<Uint8Array>): Promise<number> {
    const url = objectUrl(id)
    const init = xml.parse(await (await call('POST', `${url}?uploads`, [200])).text()) as { InitiateMultipartUploadResult?: { UploadId?: string } }
    const uploadId = init.InitiateMultipartUploadResult?.UploadId
    if (!uploadId) throw operationalError(`The blob store ${where} started no multipart upload (no UploadId in its answer).`)
    const q = `uploadId=${encodeURIComponent(uploadId)}`
    const etags: string[] = []
    const send = async (part: Uint8Array) => {
      const res = await call('PUT', `${url}?partNumber=${etags.length + 1}&${q}`, [200], part)
      await res.arrayBuffer()
      etags.push(res.headers.get('etag') ?? '')
    }
    let size = 0
    try {
      const held = new Parts()
      held.push(first)
      for (;;) {
        while (held.size >= partSize) {
          const part = held.take(partSize)
          size += part.length
          await send(part)
        }
        const next = await rest.next()
        if (next.done) break
        held.push(next.value)
      }
      if (held.size) {
        const last = held.take(held.size)
        size += last.length
        await send(last)
      }
      const done = `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</ETag></Part>`).join('')}</CompleteMultipartUpload>`
      const res = await call('POST', `${url}?${q}`, [200], done)
      // S3 may answer 200 and still fail the completion: the error is then in the body.
      const text = await res.text()
      if (/<Error>/.test(text)) throw operationalError(`The blob store ${where} did not complete the upload: ${text.slice(0, 200)}`)
      return size
    } catch (err) {
      await client.fetch(`${url}?${q}`, { method: 'DELETE' }).then((r) => r.arrayBuffer()).catch(() => undefined)
      throw err
    }
  }

  return {
    async putBlob(id, data) { await put(id, data) },
    async putBlobStream(id, chunks) {
      // Up to one part: a single PUT; beyond, a multipart upload that takes the stream from there.
      const it = chunks[Symbol.asyncIterator]()
      const held = new Parts()
      for (;;) {
        const next = await it.next()
        if (next.done) {
          const size = held.size
          await put(id, held.take(size))
          return size
        }
        held.push(next.value)
        if (held.size > partSize) return multipart(id, held.take(held.size), it)
      }
    },
    async getBlob(id) {
      const res = await call('GET', objectUrl(id), [200, 404])
      if (res.status === 404) { await res.arrayBuffer(); return undefined }
      return new Uint8Array(await res.arrayBuffer())
    },
    async deleteBlob(id) {
      // 204 whether or not it was there (S3 deletes idempotently); 404 from stores that say so.
      await (await call('DELETE', objectUrl(id), [200, 204, 404])).arrayBuffer()
    },
    async listBlobs(prefix) {
      const out: string[] = []
      let token: string | undefined
      do {
        const q = new URLSearchParams({ 'list-type': '2', prefix: config.prefix + prefix })
        if (token) q.set('continuation-token', token)
        const page = xml.parse(await (await call('GET', `${config.endpoint}/${config.bucket}?${q}`, [200])).text()) as
          { ListBucketResult?: { Contents?: { Key: string }[]; IsTruncated?: string; NextContinuationToken?: string } }
        for (const c of page.ListBucketResult?.Contents ?? []) out.push(String(c.Key).slice(config.prefix.length))
        token = page.ListBucketResult?.IsTruncated === 'true' ? page.ListBucketResult.NextContinuationToken : undefined
      } while (token)
      return out.sort()
    },
    async check() {
      // No key asked for: the answer is as small as it gets, and no continuation token is made.
      const q = new URLSearchParams({ 'list-type': '2', prefix: config.prefix, 'max-keys': '0' })
      await (await call('GET', `${config.endpoint}/${config.bucket}?${q}`, [200])).arrayBuffer()
    },
  }
}

/** Chunks held until a part is full: pushed as they come, taken from the front. */
class Parts {
  #chunks: Uint8Array[] = []
  size = 0

  push(chunk: Uint8Array): void {
    // A copy: the stream may reuse its buffer for the next chunk.
    this.#chunks.push(chunk.slice())
    this.size += chunk.length
  }

  /** The first `n` bytes held (n <= size), as one array. */
  take(n: number): Uint8Array {
    const out = new Uint8Array(n)
    let at = 0
    while (at < n) {
      const c = this.#chunks[0]!
      const k = Math.min(c.length, n - at)
      out.set(c.subarray(0, k), at)
      at += k
      if (k === c.length) this.#chunks.shift()
      else this.#chunks[0] = c.subarray(k)
    }
    this.size -= n
    return out
  }
}
