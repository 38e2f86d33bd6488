/**
 * @module sync/pull-apply
 * Applies what changed on the remote to the local layer, inside one layer write with its
 * bookkeeping. For each feature the remote state is compared with the state both sides last
 * shared (the local state at the version the mapping records):
 * - the remote did not really change it (the echo of our own push): only the lock moves on;
 * - it did, and this side did not: the remote state is written here;
 * - both did: if they agree nothing is to be done, else a conflict keeps both versions and
 *   neither is touched (changed here and deleted there, and the reverse, alike).
 * A remote record this layer cannot take (a value it cannot hold, a geometry it cannot read)
 * is noted as a problem of that feature instead of failing the batch; the feature waits (it
 * is neither written here nor pushed) until the remote sends it again in a form it can take.
 * Attachments are merged: new ones on either side are kept; an attachment changed here wins
 * over the remote's change of it (the remote's history keeps that one), and one deleted there
 * but changed here is sent back as new.
 */
import type { AttachmentFields, AttachmentFile, FeatureInput, FeatureUpdate, FeatureWrite } from '../feature/types.ts'
import type { SyncContext } from './context.ts'
import type { FeatureState, MapItem, ReplicaWrite } from './types.ts'
import { localStates, sameState, stateInput } from './state.ts'

export interface RemoteFeatureChange {
  rfid: number
  /** The remote state, given the state both sides last shared (`null`: deleted there). */
  remote: (base: FeatureState | null) => FeatureState | null
  /** The remote version of that state (the lock for pushing this feature later). */
  rvid: number | null
  /** Remotes without versions: a fingerprint of the remote state. */
  rhash?: string
}

export interface RemoteAttachmentChange {
  action: 'create' | 'update' | 'delete'
  rfid: number
  raid: number
  rfileobj: number | null
  attrs: AttachmentFields
  /** The new file, already in the store. */
  file?: AttachmentFile
}

/** Why a remote record could not be taken, for a person to read. */
function problemReason(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** A conflict kind from the two versions (`null`: deleted on that side). */
const kindOf = (local: FeatureState | null, remote: FeatureState | null) =>
  local === null ? 'delete/update' as const : remote === null ? 'update/delete' as const : 'update/update' as const

/**
 * Applies a batch of remote feature changes (each feature once). What the decisions need —
 * mappings, versions, the states now and at the last shared versions — is read in bulk first.
 */
export async function applyFeatures(tx: FeatureWrite, r: ReplicaWrite, ctx: SyncContext, changes: RemoteFeatureChange[]): Promise<void> {
  const meta = ctx.replica.meta
  const locals = await r.localsOf(changes.map((c) => c.rfid))
  const mapped = [...locals.values()]
  const current = await localStates(tx, meta, mapped.map((l) => l.mapping.fid))
  const bases = new Map<number, FeatureState>()
  const byBase = new Map<number, number[]>()
  for (const l of mapped) {
    const { fid, base, dbase } = l.mapping
    if (!base) continue
    // Unchanged here since the last exchange (our own push coming back, most often): the state then is the state now.
    if (l.vid === base && l.dvid === dbase && current.has(fid)) bases.set(fid, current.get(fid)!)
    else if (byBase.has(base)) byBase.get(base)!.push(fid)
    else byBase.set(base, [fid])
  }
  for (const [version, fids] of byBase) for (const [fid, st] of await localStates(tx, meta, fids, version)) bases.set(fid, st)
  const problems = new Set((await r.problems()).map((p) => p.rfid))
  const created: [FeatureInput, RemoteFeatureChange][] = []
  // The batch's updates and its bookkeeping, written after the loop in one call per kind (each
  // feature comes once, and the decisions below read only what was read above): a pull of our
  // own 10,000 changes coming back was 10,000 relocks, one statement each on PostgreSQL.
  const relocks: { fid: number; rvid: number | null; rhash: string | null }[] = []
  const remapped: MapItem[] = []
  const unmapped: number[] = []
  const updates: FeatureUpdate[] = []
  for (const ch of changes) {
    const l = locals.get(ch.rfid)
    const base = l ? bases.get(l.mapping.fid) ?? null : null
    // The remote state and the write it makes here, before anything is written: a record this
    // layer cannot take becomes a problem on its feature, and the rest of the pull goes on.
    let remote: FeatureState | null
    let input: FeatureInput | null
    try {
      remote = ch.remote(base)
      input = remote && stateInput(remote, meta)
    } catch (err) {
      await r.setProblem({ rfid: ch.rfid, fid: l?.mapping.fid ?? null, reason: problemReason(err) })
      continue
    }
    if (problems.has(ch.rfid)) await r.clearProblem(ch.rfid)
    if (!l) {
      // Created and deleted there since we last looked, or deleted twice: nothing to do.
      if (input) created.push([input, ch])
      continue
    }
    const { mapping: m } = l
    const fid = m.fid
    if (l.conflicted) {
      // A person decides this one: keep the newest remote version in the record.
      const open = (await r.conflicts()).find((c) => c.fid === fid)!
      if (!sameState(open.remote, remote)) {
        await r.removeConflict(open.id)
        await r.addConflict({ fid, rfid: ch.rfid, kind: kindOf(open.local, remote), local: open.local, remote, rvid: ch.rvid })
      }
      continue
    }
    const local = current.get(fid) ?? null
    const localChanged = l.vid !== m.base || l.dvid !== m.dbase
    if (m.base && sameState(remote, base)) {
      // Nothing new there (our own push coming back): the lock moves, local changes stay waiting.
      relocks.push({ fid, rvid: ch.rvid ?? m.rvid, rhash: ch.rhash ?? null })
    } else if (local === null && remote === null) {
      unmapped.push(fid)
    } else if (!localChanged) {
      if (remote === null) {
        await tx.delete(fid)
        unmapped.push(fid)
        ctx.pulled.deleted++
      } else {
        if (local === null) await tx.historyWrite!.restore(fid, input!)
        else updates.push({ fid, input: input! })
        remapped.push({ fid, rfid: ch.rfid, rvid: ch.rvid, rhash: ch.rhash ?? null })
        ctx.pulled.updated++
      }
    } else if (sameState(local, remote)) {
      remapped.push({ fid, rfid: ch.rfid, rvid: ch.rvid, rhash: ch.rhash ?? null })
    } else {
      await r.addConflict({ fid, rfid: ch.rfid, kind: kindOf(local, remote), local, remote, rvid: ch.rvid })
    }
  }
  await tx.updateMany(updates)
  // Created in one call, mapped after: they are inserted in bulk when the first mapping needs their versions.
  const fids = await tx.createMany(created.map(([input]) => input))
  await r.unmapMany(unmapped)
  await r.relockMany(relocks)
  // At their versions now, after this batch's writes (an updated feature's base is its new version).
  await r.mapMany([...remapped, ...created.map(([, ch], i) => ({ fid: fids[i]!, rfid: ch.rfid, rvid: ch.rvid, rhash: ch.rhash ?? null }))])
  ctx.pulled.created += created.length
}

/** Applies one attachment change; `true` when its file became the attachment's. */
export async function applyAttachment(tx: FeatureWrite, r: ReplicaWrite, ctx: SyncContext, ch: RemoteAttachmentChange): Promise<boolean> {
  const am = await r.localAttachmentOf(ch.raid)
  if (!am) {
    if (ch.action === 'delete') return false
    const fm = await r.localOf(ch.rfid)
    // Without its feature here (deleted on this side) the attachment has nowhere to go.
    if (!fm || !await tx.exists(fm.fid) || !ch.file) return false
    const aid = await tx.addAttachment(fm.fid, { ...ch.attrs, mime_type: ch.attrs.mime_type ?? 'application/octet-stream' }, ch.file)
    await r.mapAttachment(aid, ch.raid, fm.fid, ch.rfileobj)
    ctx.pulled.attachments++
    return true
  }
  const row = await tx.attachment(am.fid, am.aid)
  const changedHere = (await tx.historyWrite!.attachmentVersion(am.fid, am.aid))?.vid !== am.base
  if (ch.action === 'delete') {
    await r.unmapAttachment(am.aid)
    // Changed here: it stays, and goes back to the remote as a new attachment.
    if (row && !changedHere) {
      await tx.removeAttachment(row)
      ctx.pulled.attachments++
    }
    return false
  }
  if (!row) return false
  const keep = { vid: am.base, fileobj: am.lfileobj }
  const same = !ch.file && Object.entries(ch.attrs).every(([k, v]) => row[k as keyof typeof row] === v)
  if (changedHere || ch.action === 'create' || same) {
    // Ours coming back, or ours changed since: the remote's side is noted, ours stays.
    await r.mapAttachment(am.aid, ch.raid, am.fid, ch.rfileobj, changedHere ? keep : undefined)
    return false
  }
  await tx.changeAttachment(row, ch.attrs, ch.file)
  ctx.pulled.attachments++
  await r.mapAttachment(am.aid, ch.raid, am.fid, ch.rfileobj)
  return !!ch.file
}
