/**
 * @module upload/stream
 * Upload bytes go from the request straight into a store blob, never whole in memory; the
 * head of the file is kept on the way for the type sniffer. Anonymous uploads are allowed, as
 * in the original, but only while the host's pending uploads (not yet expired, TUS uploads by
 * their declared length) stay under its quota (`Platform.uploadQuota`).
 */
import { concatBytes } from '../core/bytes.ts'
import type { Platform } from '../platform/platform.ts'
import type { UploadServices as Services } from './env.ts'
import type { BlobStore } from '../port/port.ts'
import { SNIFF_WINDOW } from './sniff.ts'

/** Pending upload bytes a host accepts from anonymous users: 1 GiB unless the host says. */
export const DEFAULT_UPLOAD_QUOTA = 1024 ** 3

export const uploadQuota = (platform: Platform) => platform.uploadQuota ?? DEFAULT_UPLOAD_QUOTA

/** A blob written from a stream: its size and its first bytes (enough for `sniffMime`). */
export interface StreamedBlob {
  size: number
  /** The first `SNIFF_WINDOW + 1` bytes, or all of a shorter file. */
  head: Uint8Array
}

/** Writes `chunks` into blob `blobId`; throws what `chunks` throws, leaving no blob then. */
export async function streamToBlob(blobs: BlobStore, blobId: string, chunks: AsyncIterable<Uint8Array>): Promise<StreamedBlob> {
  const head: Uint8Array[] = []
  let headSize = 0
  async function* tap() {
    for await (const c of chunks) {
      if (headSize <= SNIFF_WINDOW) {
        head.push(c.subarray(0, SNIFF_WINDOW + 1 - headSize).slice())
        headSize += Math.min(c.length, SNIFF_WINDOW + 1 - headSize)
      }
      yield c
    }
  }
  const size = await blobs.putBlobStream(blobId, tap())
  return { size, head: concatBytes(head) }
}

/** Bytes that uploads created since `since` take or, while incomplete, have declared. */
export function pendingBytes(services: Services, since: string): Promise<number> {
  return services.data.read((tx) => tx.uploads.pendingBytes(since))
}
