/** What the migrate tests share: a folder's fingerprint and a host's full stop. */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Server } from 'node:http'
import type { OutpostApp } from '../../sw/app.ts'

/** sha256 of every file under `dir` (path and bytes). */
export function hashFolder(dir: string): string {
  const h = createHash('sha256')
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else h.update(p).update(readFileSync(p))
    }
  }
  walk(dir)
  return h.digest('hex')
}

/** Closes the host's server, then its data port and store (the folder is free again). */
export const stop = async (h: { server: Server; app: OutpostApp }) => {
  await new Promise<void>((resolve) => h.server.close(() => resolve()))
  const s = await h.app.services()
  await s.data.close()
  await s.platform.store.close?.()
}
