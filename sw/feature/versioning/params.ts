/**
 * @module feature/versioning/params
 * Version parameters as the original checks them (reference §12): `epoch` against the
 * layer's, versions within `1..latest` (0 allowed where it means "from the start").
 */
import { queryInt } from '../../core/validate.ts'
import type { HistoryRead, VersioningState } from '../history-types.ts'
import { epochMismatch, versioningNotEnabled, versionOutOfRange } from './errors.ts'

/** The layer's history and versioning state; 422 `FVersioningNotEnabled` when it keeps no versions. */
export async function requireVersioning<H extends HistoryRead>(history: H | undefined): Promise<[H, VersioningState]> {
  const v = await history?.versioning()
  if (!history || !v) throw versioningNotEnabled()
  return [history, v]
}

export function checkEpoch(state: VersioningState, epoch: number): void {
  if (epoch !== state.epoch) throw epochMismatch()
}

export function checkVersion(state: VersioningState, version: number, allowZero = false): number {
  if (version < (allowZero ? 0 : 1) || version > state.latest) throw versionOutOfRange()
  return version
}

/**
 * `?version=` (with an optional `epoch`) of a point-in-time read; `undefined` when not asked.
 * Needs versioning (422 otherwise).
 */
export async function readVersion(history: HistoryRead | undefined, params: URLSearchParams): Promise<number | undefined> {
  const version = queryInt(params, 'version')
  if (version === undefined) return undefined
  const [, state] = await requireVersioning(history)
  const epoch = queryInt(params, 'epoch')
  if (epoch !== undefined) checkEpoch(state, epoch)
  return checkVersion(state, version)
}
