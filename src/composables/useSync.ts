/**
 * @module composables/useSync
 * The app's side of sync, app-wide: the layers taken offline and their state, rounds with
 * their progress, and what keeps field data safe — persistent storage asked for before the
 * first offline layer, the quota used, and sync when the network returns (the `online` event,
 * and the Background Sync API where the browser has it, so the worker syncs even with the app
 * closed).
 */
import { computed, ref, shallowRef } from 'vue'
import { useAuth } from './useAuth.ts'
import { listLinked, syncAll, syncLayer, syncState, type LinkedLayer, type SyncProgress, type SyncReport } from '../api/sync.ts'

/** The Background Sync tag the worker answers (sw/host/service-worker.ts). */
export const SYNC_TAG = 'outpost-sync'
/** How often a running round's progress is read. */
const POLL_MS = 400

const layers = shallowRef<LinkedLayer[]>([])
const running = ref(new Map<number, SyncProgress>())
const storage = ref<{ usage: number; quota: number; persisted: boolean } | null>(null)
let listening = false

async function refresh(): Promise<LinkedLayer[]> {
  // A guest may not list the linked layers (issue 21): nothing to ask, nothing waits for them.
  layers.value = useAuth().isGuest.value ? [] : await listLinked()
  return layers.value
}

/** Reads the progress of layer `id` until `done` settles. */
function watchProgress(id: number, done: Promise<unknown>): void {
  let over = false
  done.finally(() => { over = true; running.value.delete(id); running.value = new Map(running.value) }).catch(() => undefined)
  const tick = async () => {
    if (over) return
    const s = await syncState(id).catch(() => undefined)
    if (over) return
    running.value = new Map(running.value).set(id, s?.running ?? { stage: 'starting', done: 0, total: null })
    setTimeout(tick, POLL_MS)
  }
  void tick()
}

/** One round of layer `id`; asks for a background sync when the network failed it. */
async function syncOne(id: number): Promise<SyncReport> {
  const p = syncLayer(id)
  watchProgress(id, p)
  try {
    const report = await p
    if (report.status === 'error') await registerBackgroundSync()
    return report
  } finally {
    await refresh().catch(() => undefined)
  }
}

const waiting = computed(() => layers.value.reduce((n, l) => n + l.local_changes.features + l.local_changes.attachments, 0))
const conflicts = computed(() => layers.value.reduce((n, l) => n + l.conflicts, 0))

/** Whether the browser has the Background Sync API (Chromium does; others sync while the app is open). */
async function backgroundSyncAvailable(): Promise<boolean> {
  const reg = await navigator.serviceWorker?.ready.catch(() => undefined)
  return !!reg && 'sync' in reg
}

/** Asks the browser to sync when it is online again, also with the app closed (where it can). */
async function registerBackgroundSync(): Promise<boolean> {
  try {
    const reg = await navigator.serviceWorker?.ready as ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }
    if (!reg?.sync) return false
    await reg.sync.register(SYNC_TAG)
    return true
  } catch {
    return false
  }
}

/** Every layer with changes waiting, one round each. */
async function syncWaiting(): Promise<void> {
  const list = await refresh()
  if (list.some((l) => l.local_changes.features || l.local_changes.attachments)) await syncAll()
  await refresh()
}

/** Asks the browser to keep this site's data (not evicted under storage pressure); reads the quota. */
async function keepStorage(ask = true): Promise<void> {
  const s = navigator.storage
  if (!s) return
  const persisted = (await s.persisted?.()) || (ask && (await s.persist?.())) || false
  const { usage = 0, quota = 0 } = (await s.estimate?.()) ?? {}
  storage.value = { usage, quota, persisted }
}

export function useSync() {
  if (!listening && typeof window !== 'undefined') {
    listening = true
    // The network is back: send what waits (the worker does too, through Background Sync).
    window.addEventListener('online', () => { syncWaiting().catch(() => undefined) })
    window.addEventListener('offline', () => { if (waiting.value) void registerBackgroundSync() })
  }
  return { layers, running, storage, waiting, conflicts, refresh, syncOne, syncWaiting, keepStorage, registerBackgroundSync,
    backgroundSyncAvailable }
}
