/**
 * @module host/node-secret
 * The Node host's key for secrets at rest: 32 random bytes in `<data>/secret.key`, readable
 * by its owner only (0600), made on first use; without a data folder a key for this run.
 */
import { mkdir, open, readFile } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { importSecretKey, newSecretKey } from '../core/secret.ts'
import { sharedStart } from '../core/once.ts'

export function nodeSecretKey(dataDir: string | undefined): () => Promise<CryptoKey> {
  if (!dataDir) return sharedStart(newSecretKey)
  const path = join(dataDir, 'secret.key')
  return sharedStart(async () => {
    let raw = await readFile(path).catch(() => undefined)
    if (!raw) {
      const fresh = randomBytes(32)
      // With --database the folder may hold nothing else, so nothing else has made it.
      await mkdir(dataDir, { recursive: true })
      // O_EXCL: two starts racing on a new folder keep one key.
      const fh = await open(path, 'wx', 0o600).catch(() => undefined)
      if (fh) {
        try { await fh.writeFile(fresh); await fh.sync() } finally { await fh.close() }
      }
      raw = await readFile(path)
    }
    if (raw.length !== 32) throw new Error(`${path} is not a 32-byte key.`)
    return importSecretKey(new Uint8Array(raw))
  })
}
