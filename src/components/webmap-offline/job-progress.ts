/**
 * @module components/webmap-offline/job-progress
 * A take-offline or refresh job watched by its progress token (the ingest's progress endpoint):
 * the stage and count as a line of text while it runs, and the token for its Stop.
 */
import { computed, ref } from 'vue'
import { progressOf, progressToken } from '../../api/ingest.ts'

const STAGES: Record<string, string> = { reading: 'Reading the map', layers: 'Layers', styles: 'Styles', tiles: 'Basemap tiles',
  saving: 'Saving', pulling: 'Layers', cancelling: 'Stopping', rasters: 'Rasters',
  webmap: 'The web map', features: 'Sending features' }
/** How often the progress is asked for. */
const POLL_MS = 500

export function useJobProgress() {
  const token = ref<string | null>(null)
  const text = ref('')

  /** Runs `work` under a new token, reporting its progress in `text` until it ends. */
  async function run<T>(work: (token: string) => Promise<T>): Promise<T> {
    const t = progressToken()
    token.value = t
    text.value = 'Starting…'
    const timer = setInterval(async () => {
      const p = await progressOf(t).catch(() => undefined)
      if (p?.state === 'running' && token.value === t) text.value = `${STAGES[p.stage] ?? p.stage}: ${p.done}${p.total ? ` of ${p.total}` : ''}`
    }, POLL_MS)
    try {
      return await work(t)
    } finally {
      clearInterval(timer)
      token.value = null
    }
  }

  return { token, text, busy: computed(() => token.value !== null), run }
}
