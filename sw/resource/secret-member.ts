/**
 * @module resource/secret-member
 * A member's `password` kept as a secret at rest (core/secret: AES-GCM with the host's key):
 * the connection classes (`remote_connection`, `spatialdb_connection`) encrypt it in their
 * `prepare`, before the main write, because WebCrypto is asynchronous and a class's write hooks
 * await nothing but their transaction; the write then takes the prepared text. Reading it back
 * goes through `secretReader`, which keeps what it decrypted.
 */
import { expectKind } from '../core/validate.ts'
import { decryptSecret, encryptSecret } from '../core/secret.ts'
import type { Platform } from '../platform/platform.ts'
import type { ClassContext, Prepared } from './class.ts'

/** The password of member `cls`, encrypted (`null`: none, where the class allows it). */
interface PreparedSecret extends Prepared {
  password: string | null
}

/**
 * Encrypts `members[cls].password` when it is given; `undefined` when it is not (nothing to
 * prepare). `nullable`: `null` clears it, else it must be a string (422 otherwise).
 */
export async function prepareSecret(platform: Platform, members: Record<string, unknown>, cls: string,
  nullable: boolean): Promise<PreparedSecret | undefined> {
  const m = members[cls]
  if (m === undefined || m === null || typeof m !== 'object' || !('password' in m)) return undefined
  const raw = expectKind<string | null>('str', (m as Record<string, unknown>).password, `$.${cls}.password`, nullable)
  const password = raw === null ? null : await encryptSecret(await platform.secretKey(), raw)
  return { password, discard: async () => {}, settle: () => {} }
}

/** The password `prepareSecret` encrypted for this write (its member gave one). */
export const preparedSecret = (ctx: ClassContext) => (ctx.prepared as PreparedSecret).password

/** Stored secrets decrypted with the host's key, each clear text kept by its encrypted text. */
export interface SecretReader {
  /** Decrypts (at most 1,000 kept); throws what decryptSecret throws for a text made with another key. */
  read(encrypted: string): Promise<string>
  /** The clear text if `read` has already decrypted it (for synchronous answers). */
  known(encrypted: string): string | undefined
}

/** A SecretReader: decrypting is asynchronous and not free, so each text is decrypted once. */
export function secretReader(platform: Platform): SecretReader {
  const clear = new Map<string, string>()
  return {
    async read(encrypted) {
      let plain = clear.get(encrypted)
      if (plain === undefined) {
        plain = await decryptSecret(await platform.secretKey(), encrypted)
        if (clear.size > 1000) clear.clear()
        clear.set(encrypted, plain)
      }
      return plain
    },
    known: (encrypted) => clear.get(encrypted),
  }
}
