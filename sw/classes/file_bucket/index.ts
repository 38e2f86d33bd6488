/**
 * @module classes/file_bucket
 * A bucket of files (spec §2.2, §4.2; reference §4.1 `file_bucket`). Created from upload
 * records; a change sends the complete `files` list: items without `id` keep the bucket's
 * file of that name, items with an upload `id` add (or replace) one, files not listed are
 * deleted. The uploads' bytes are stored before the main write (`prepare`), and dropped
 * files' bytes are deleted after it (`files/service`). Its files are served by the files
 * component (`/file/{name}`, `/export`).
 */
import { validationError } from '../../core/error.ts'
import { expectKind, expectObject } from '../../core/validate.ts'
import { naiveIso } from '../../resource/service.ts'
import { readUpload, resolveUploadRef } from '../../upload/service.ts'
import { discardFiles, flushReleased, settleFiles, stageFile } from '../../files/service.ts'
import { adoptFiles, releaseFiles } from '../../files/in-write.ts'
import type { BucketFile, StoredFile } from '../../files/types.ts'
import { textProblem } from '../../ingest/encoding.ts'
import type { ClassData, ClassEnv, ClassFactory, Prepared, WriteContext } from '../types.ts'

interface Staged { name: string; size: number; mime_type: string; file: StoredFile }
interface PreparedFiles extends Prepared {
  staged: Map<number, Staged>
  /** Files the change drops, deleted once it has committed. */
  dropped: StoredFile[]
}

const CLASS = 'file_bucket'
const PATH = '$.file_bucket.files'

const bucketFiles = (data: ClassData) => (data.files as BucketFile[] | undefined) ?? []

function itemsOf(member: unknown): Record<string, unknown>[] {
  const m = expectObject(member, '$.file_bucket')
  if (m.files === undefined) return []
  return expectKind<unknown[]>('array', m.files, PATH).map((f, i) => expectObject(f, `${PATH}[${i}]`))
}

function nameOf(v: unknown, path: string): string {
  const name = expectKind<string>('str', v, path)
  const bad = textProblem(name, true)
  if (!name || name === '.' || name === '..' || /[/\\]/.test(name) || bad || name.length > 255) {
    throw validationError(`Invalid file name '${name}': ${bad ?? 'a plain name without slashes is expected'} - at \`${path}\``, { name })
  }
  return name
}

/** The new file list from the sent items; adopts new files and releases dropped ones. */
async function apply(env: ClassEnv, ctx: WriteContext, members: Record<string, unknown>, current: BucketFile[]): Promise<ClassData> {
  const prepared = ctx.prepared as PreparedFiles | undefined
  const staged = prepared?.staged ?? new Map<number, Staged>()
  const byName = new Map(current.map((f) => [f.name, f]))
  const next: BucketFile[] = []
  const seen = new Set<string>()
  itemsOf(members.file_bucket).forEach((item, i) => {
    const path = `${PATH}[${i}]`
    const s = staged.get(i)
    const name = item.name === undefined && s ? s.name : nameOf(item.name, `${path}.name`)
    if (seen.has(name)) throw validationError(`File name '${name}' is listed twice - at \`${path}.name\``, { name })
    seen.add(name)
    if (s) {
      next.push({ name, size: s.size, mime_type: s.mime_type, key: s.file.key })
      return
    }
    const kept = byName.get(name)
    if (!kept) throw validationError(`The bucket has no file '${name}'; a new file needs the \`id\` of its upload - at \`${path}\``, { name })
    next.push(kept)
  })
  const keys = new Set(next.map((f) => f.key))
  const dropped = current.filter((f) => !keys.has(f.key))
  // The rows say what to delete; `settle` deletes it once the write has committed.
  await releaseFiles(env, ctx.tx, dropped)
  if (prepared) prepared.dropped = dropped
  await adoptFiles(ctx.tx, [...staged.values()].map((s) => s.file))
  return { files: next, tstamp: naiveIso(ctx.now) }
}

export const fileBucket: ClassFactory = (env) => ({
  identity: CLASS,
  label: 'File bucket',
  order: 100,
  category: 'miscellaneous',
  scopes: ['data', 'resource'],
  interfaces: [],
  members: ['file_bucket'],
  acceptsParent: (p) => p === 'resource_group',

  // The uploads named in `files` are stored before the main write: reading and copying them
  // may take long, and a failed write discards them.
  async prepare({ progress }, members) {
    if (members.file_bucket === undefined) return undefined
    const items = itemsOf(members.file_bucket)
    const staged = new Map<number, Staged>()
    const prepared: PreparedFiles = {
      staged,
      dropped: [],
      discard: () => discardFiles(env, [...staged.values()].map((s) => s.file)),
      settle: () => {
        settleFiles([...staged.values()].map((s) => s.file))
        void flushReleased(env, prepared.dropped).catch((err) => env.platform.log('Deleting dropped files failed', err))
      },
    }
    try {
      progress.stage('saving', items.length)
      for (const [i, item] of items.entries()) {
        if (item.id === undefined) continue
        const upload = await resolveUploadRef(env, item, `${PATH}[${i}]`)
        const name = item.name === undefined ? (upload.name ?? '') : item.name
        staged.set(i, { name: nameOf(name, `${PATH}[${i}].name`), size: upload.size, mime_type: upload.mime_type ?? 'application/octet-stream',
          file: await stageFile(env, await readUpload(env, upload.id)) })
        progress.done(i + 1)
      }
    } catch (err) {
      await prepared.discard()
      throw err
    }
    return prepared
  },

  create: (ctx, _id, members) => apply(env, ctx, members.file_bucket === undefined ? { file_bucket: {} } : members, []),

  update: (ctx, _id, members, data) => (members.file_bucket === undefined ? data : apply(env, ctx, members, bucketFiles(data))),

  serialize: (_ctx, _id, data) => ({
    file_bucket: { files: bucketFiles(data).map((f) => ({ name: f.name, size: f.size, mime_type: f.mime_type })), tstamp: data.tstamp ?? null },
  }),

  remove: (ctx, _id, data) => releaseFiles(env, ctx.tx, bucketFiles(data)),

  capabilities: {
    fileBucket: {
      bucketFiles: async (ref) => bucketFiles(ref.data),
    },
  },
})
