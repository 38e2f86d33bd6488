/**
 * @module upload/types
 * The upload record as the original serializes it (reference §7), and the row behind it.
 */

/**
 * What every upload endpoint answers and what consumers (`file_bucket.files`, attachment
 * `file_upload`, layer `source`) receive back. Key order as the original: id, size, name,
 * mime_type; `name` and `mime_type` are omitted when unknown.
 */
export interface UploadRecord {
  id: string
  size: number
  name?: string
  mime_type?: string
}

/** A row of the `upload` table. */
export interface UploadRow {
  id: string
  /** Declared length (TUS) or the actual size, in bytes. */
  size: number
  name: string | null
  mime_type: string | null
  /** Bytes received so far; equals `size` once complete. */
  received: number
  /** JSON array of the blobs holding a TUS upload's chunks, in order; `[]` when one blob holds it all. */
  parts: string
  /** ISO time of creation; the upload expires `UPLOAD_TTL_MS` later. */
  created: string
}

/** An upload's details as the service hands them around. */
export interface UploadInfo {
  id: string
  size: number
  name?: string
  mimeType?: string
  received: number
  incomplete: boolean
  /** Blobs holding the bytes of a TUS upload, in order; empty when `upload-<id>` holds them. */
  parts: string[]
}
