/**
 * @module host/sw-secret
 * The worker's key for secrets at rest: a non-extractable AES-GCM CryptoKey kept in an
 * IndexedDB database of its own (IndexedDB stores CryptoKeys as they are; their bytes are
 * never readable by script), made on first use.
 */
import { newSecretKey } from '../core/secret.ts'
import { sharedStart } from '../core/once.ts'

const DB = 'outpost-secrets'
const STORE = 'keys'
const NAME = 'secrets'

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error) })
}

export function swSecretKey(idb: IDBFactory): () => Promise<CryptoKey> {
  return sharedStart(async () => {
    const open = idb.open(DB, 1)
    open.onupgradeneeded = () => open.result.createObjectStore(STORE)
    const db = await request(open)
    try {
      const have = await request(db.transaction(STORE).objectStore(STORE).get(NAME)) as CryptoKey | undefined
      if (have) return have
      const key = await newSecretKey()
      const tx = db.transaction(STORE, 'readwrite')
      // `add`: a second worker instance racing here fails instead of replacing the first key.
      tx.objectStore(STORE).add(key, NAME)
      await new Promise<void>((resolve, reject) => { tx.oncomplete = () => resolve(); tx.onerror = () => reject(tx.error) })
        .catch(() => undefined)
      return (await request(db.transaction(STORE).objectStore(STORE).get(NAME)) as CryptoKey | undefined) ?? key
    } finally {
      db.close()
    }
  })
}
