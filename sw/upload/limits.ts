/**
 * @module upload/limits
 * Upload limits: what `pyramid.settings` reports for `file_upload` and what the upload
 * routes enforce.
 */

/** The original's defaults: 512 MiB per file, 16 MiB per TUS chunk as clients send them. */
export const FILE_UPLOAD = { maxSize: 512 * 1024 * 1024, chunkSize: 16 * 1024 * 1024 }

/** Largest accepted upload in bytes: the host's override or `FILE_UPLOAD.maxSize`. */
export function uploadMaxSize(platform: { uploadMaxSize?: number }): number {
  return platform.uploadMaxSize ?? FILE_UPLOAD.maxSize
}
