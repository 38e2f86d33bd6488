/**
 * @module sync/resolve
 * A person's choice on a conflict: keep the local version, the remote one, or a merged
 * feature. The choice is written here at once; what has to go to the remote (a kept local
 * or merged version) waits for the next push, locked to the remote version the conflict
 * showed, so a remote that changed again meanwhile makes a new conflict instead of being
 * overwritten.
 */
import { isObject } from '../core/http.ts'
import { validationError } from '../core/error.ts'
import { expectObject } from '../core/validate.ts'
import { fromBase64, toBase64 } from '../core/bytes.ts'
import { readWkb, toWkb } from '../geo/wkb.ts'
import { parseWkt, toWkt } from '../geo/wkt.ts'
import { ValueError } from '../feature/values.ts'
import type { Conflict, FeatureState, Replica } from './types.ts'
import { conflictNotFound } from './errors.ts'
import { stateHash, stateInput } from './state.ts'

/** A merged feature holds only what the person gave: the rest keeps its local value. */
export type Choice = { keep: 'local' | 'remote' } | { feature: Partial<FeatureState> }

/** A state as the API shows it: geometry as WKT. */
export function stateJson(s: FeatureState | null): Record<string, unknown> | null {
  return s && { geom: s.geom === null ? null : toWkt(readWkb(fromBase64(s.geom))), fields: s.fields, description: s.description ?? null }
}

export function conflictJson(c: Conflict): Record<string, unknown> {
  return { id: c.id, fid: c.fid, remote_fid: c.rfid, kind: c.kind, local: stateJson(c.local), remote: stateJson(c.remote),
    remote_vid: c.rvid, created: c.created }
}

/** Reads a resolution body: `{"keep": "local"|"remote"}` or `{"feature": {geom: WKT|null, fields}}`. */
export function parseChoice(body: Record<string, unknown>): Choice {
  if (body.keep === 'local' || body.keep === 'remote') return { keep: body.keep }
  if (body.keep !== undefined) throw validationError('`keep` must be "local" or "remote" - at `$.keep`')
  if (body.feature === undefined) throw validationError('Either `keep` or a merged `feature` is required - at `$`')
  const f = expectObject(body.feature, '$.feature')
  const feature: Partial<FeatureState> = {}
  if (typeof f.geom === 'string') {
    try {
      feature.geom = toBase64(toWkb(parseWkt(f.geom)))
    } catch (err) {
      throw validationError(`Geometry is not valid: ${(err as Error).message} - at \`$.feature.geom\``)
    }
  } else if (f.geom === null) {
    feature.geom = null
  } else if (f.geom !== undefined) {
    throw validationError('Expected a WKT string or null - at `$.feature.geom`')
  }
  if (f.fields !== undefined) {
    const fields = expectObject(f.fields, '$.feature.fields')
    feature.fields = isObject(fields) ? fields : {}
  }
  if (f.description !== undefined) {
    if (f.description !== null && typeof f.description !== 'string') {
      throw validationError('Expected a string or null - at `$.feature.description`')
    }
    feature.description = f.description
  }
  return { feature }
}

/** The feature a choice keeps: a merged one is the local version (the remote one if deleted here) with what was given. */
function chosen(c: Conflict, choice: Choice): FeatureState | null {
  if ('keep' in choice) return choice.keep === 'local' ? c.local : c.remote
  const start = (c.local ?? c.remote)!
  return { ...start, ...choice.feature, fields: { ...start.fields, ...choice.feature.fields } }
}

/** Applies a choice on conflict `id` of `replica`; 404 when there is no such conflict. */
export async function resolveConflict(replica: Replica, id: number, choice: Choice, userId: number): Promise<void> {
  const meta = replica.meta
  await replica.write(async (tx, r) => {
    const c = await r.conflict(id)
    if (!c) throw conflictNotFound(id)
    const m = await r.mapping(c.fid)
    const local = chosen(c, choice)
    await r.removeConflict(id)
    // Write the chosen version here (unless it is what is here already).
    if (!('keep' in choice && choice.keep === 'local')) {
      try {
        if (local === null) await tx.delete(c.fid)
        else if (!await tx.exists(c.fid)) await tx.historyWrite!.restore(c.fid, stateInput(local, meta))
        else await tx.update(c.fid, stateInput(local, meta))
      } catch (err) {
        if (err instanceof ValueError) throw validationError(`Invalid value: ${err.message} - at \`$.feature\``)
        throw err
      }
    }
    // The remote state the person saw is the one last seen there: a remote without versions is
    // compared by this fingerprint, so the next pull does not take that same state for a new
    // change (which would raise the conflict again before the push).
    const seen = c.remote && stateHash(c.remote)
    if ('keep' in choice && choice.keep === 'remote') {
      // Both sides now match the remote version.
      if (c.remote === null) await r.unmap(c.fid)
      else await r.map(c.fid, c.rfid, c.rvid, undefined, seen)
      return
    }
    if (c.remote === null) {
      // Gone there: what is kept here goes back as a new remote feature.
      await r.unmap(c.fid)
    } else if (m) {
      // Sent on the next push, locked to the remote version the person saw.
      await r.map(c.fid, c.rfid, c.rvid, { vid: 0, dvid: 0 }, seen)
    }
  }, { userId })
}
