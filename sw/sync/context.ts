/**
 * @module sync/context
 * What one sync round of one layer works with: the replica, the remote client, the link's
 * state (saved with each write that changes it), the remote layer's fields, counts and
 * progress.
 */
import type { Field } from '../feature/types.ts'
import type { RemoteClient } from './client.ts'
import type { Counts, LinkState, Replica } from './types.ts'
import { byRemoteId } from './state.ts'

export interface SyncPlatform {
  /** Where attachment bytes live: the data port's blobs, which every process of a host sees. */
  blobs: { putBlob(id: string, data: Uint8Array): Promise<void>; deleteBlob(id: string): Promise<void>
    getBlob(id: string): Promise<Uint8Array | undefined> }
  now(): Date
  log(message: string, err?: unknown): void
}

export const zeroCounts = (): Counts => ({ created: 0, updated: 0, deleted: 0, attachments: 0 })

export interface Progress {
  stage: 'pull' | 'push'
  done: number
  total: number | null
}

export class SyncContext {
  readonly pulled = zeroCounts()
  readonly pushed = zeroCounts()
  /** Local fields by remote field id. */
  byRid: Map<number, Field>
  /** Remote field keyname → remote field id (remote features come keyed by keyname). */
  remoteKeynames = new Map<string, number>()

  constructor(readonly replica: Replica, readonly client: RemoteClient, readonly platform: SyncPlatform,
    public state: LinkState, readonly progress: (p: Progress | null) => void) {
    this.byRid = byRemoteId(replica.meta, state.fieldMap)
  }

  /** The keyname of remote field `rid`. */
  remoteKeynameOf(rid: number): string | undefined {
    for (const [k, id] of this.remoteKeynames) if (id === rid) return k
    return undefined
  }

  /** The remote layer's path of `rest`. */
  path(rest = ''): string {
    return `/api/resource/${this.replica.link.resource}${rest}`
  }

  nowIso(): string {
    return this.platform.now().toISOString().slice(0, 19)
  }
}
