/**
 * @module classes/vector_layer/versioning-member
 * `feature_layer.versioning` on create and change (reference §12): `{"enabled": true|false}`.
 * New layers keep versions unless told otherwise (the original's default since 5.4). Each
 * time versioning is turned on the layer gets a new epoch, larger than any epoch the server
 * gave before, so a client holding an old history sees it is gone.
 */
import { expectKind, expectObject } from '../../core/validate.ts'
import type { MainRead } from '../../port/port.ts'
import type { LayerData } from './layers.ts'

/** The versioning record after applying `member` (absent: unchanged, or on for a new layer). */
export async function versioningOf(tx: MainRead, member: unknown, current: LayerData['versioning'], creating: boolean,
  userId: number): Promise<LayerData['versioning']> {
  let enabled = creating ? true : !!current?.enabled
  if (member !== undefined && member !== null) {
    const m = expectObject(member, '$.feature_layer.versioning')
    if (m.enabled !== undefined) enabled = expectKind<boolean>('bool', m.enabled, '$.feature_layer.versioning.enabled')
  }
  if (enabled === !!current?.enabled) return current
  if (!enabled) return { enabled: false, epoch: current!.epoch }
  const last = await tx.resources.maxDataNumber('versioning.epoch')
  // Who turns it on is the author of version 1 (the original opens it with the request's user).
  return { enabled: true, epoch: last + 1, user_id: userId }
}
