/**
 * @module files/in-write
 * The two record changes a class hook makes inside the tree's unit of work (`ctx.tx`): adopting
 * the files a resource now refers to, releasing those it stops referring to (files/service.ts
 * tells the story; sw/sqlite/main/files.ts stores them).
 */
import type { MainWrite } from '../port/port.ts'
import { dropRows, type FileServices } from './service.ts'
import type { StoredFile } from './types.ts'

/** Inside the unit of work that makes a resource refer to `files`: they are the resource's now. */
export async function adoptFiles(tx: MainWrite, files: StoredFile[]): Promise<void> {
  await tx.files.adopt(files.map((f) => f.key))
}

/**
 * Inside a unit of work that stops referring to `files` (a resource deleted, a bucket's file
 * dropped): returns what deletes their chunks once it has committed. Until that has run, the
 * records say what is to be deleted, so a worker stopped in between loses nothing.
 */
export async function releaseFiles(services: FileServices, tx: MainWrite, files: StoredFile[]): Promise<() => Promise<void>> {
  await tx.files.release(files)
  return () => dropRows(services, files)
}
