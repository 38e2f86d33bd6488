/**
 * @module ingest/member
 * What every layer made from a file reads from its class member: the reference system it is
 * stored in and the upload it comes from (spec §2.2: `source` is an upload record, with the
 * `encoding` the client names).
 */
import { validationError } from '../core/error.ts'
import { expectObject, expectRef } from '../core/validate.ts'
import { findSrs } from '../geo/srs.ts'
import { readUpload, resolveUploadRef } from '../upload/service.ts'
import type { UploadServices } from '../upload/env.ts'
import type { SourceFile } from './vector-source.ts'

/** The `srs` of a member (`path` is its JSON path), checked against the systems the server knows. */
export function memberSrs(m: Record<string, unknown>, path: string): number {
  if (m.srs === undefined) throw validationError(`Field \`srs\` is required - at \`${path}\``)
  const id = expectRef(m.srs, `${path}.srs`)
  if (!findSrs(id)) throw validationError(`Spatial reference system id = ${id} is not known - at \`${path}.srs.id\``, { srs_id: id })
  return id
}

/** The upload a member's `source` names: its record and a reader of its bytes. */
export async function memberSource(services: UploadServices, m: Record<string, unknown>, path: string):
  Promise<{ name: string; encoding?: string; read(): Promise<SourceFile> }> {
  const ref = expectObject(m.source, `${path}.source`)
  const upload = await resolveUploadRef(services, ref, `${path}.source`)
  const encoding = typeof ref.encoding === 'string' ? ref.encoding : undefined
  return {
    name: upload.name ?? '',
    encoding,
    // Read when GDAL's job starts, so only that job holds the bytes (they go when it ends).
    read: async () => ({ name: upload.name ?? '', bytes: await readUpload(services, upload.id), encoding }),
  }
}
