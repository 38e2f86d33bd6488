/**
 * @module components/ingest/ingest-stages
 * What the import dialog says while a file becomes a layer: the server's stages in words,
 * with the number of features done where the server counts them.
 */
import type { IngestProgress } from '../../api/ingest.ts'

const STAGES: Record<string, string> = {
  uploading: 'Uploading the file',
  starting: 'Starting',
  gdal: 'Starting GDAL',
  cancelling: 'Cancelling',
  reading: 'Reading the file with GDAL',
  converting: 'Converting and reprojecting with GDAL',
  checking: 'Checking features',
  loading: 'Loading features',
  writing: 'Writing features',
  saving: 'Saving',
}

/** The line under the progress bar, e.g. "Checking features: 40,000 of 100,000". */
export function stageText(p: Pick<IngestProgress, 'stage' | 'done' | 'total'>): string {
  const label = STAGES[p.stage] ?? p.stage
  if (p.total && (p.stage === 'checking' || p.stage === 'loading')) {
    return `${label}: ${p.done.toLocaleString('en')} of ${p.total.toLocaleString('en')}`
  }
  if (p.total && p.stage === 'writing') return `${label}: ${p.total.toLocaleString('en')}`
  return `${label}…`
}

/** The bar's fill from 0 to 1, or `undefined` while the stage has no count (an indeterminate bar). */
export function stageFraction(p: Pick<IngestProgress, 'stage' | 'done' | 'total'>): number | undefined {
  if ((p.stage === 'checking' || p.stage === 'loading') && p.total) return Math.min(1, p.done / p.total)
  return undefined
}

/** A layer name from a file name: without its extension. */
// Any extension goes: a file named for another format (`notes.shp`) still gets a plain name.
export const nameOfFile = (name: string) => name.replace(/\.[a-z0-9]{1,8}$/i, '') || name

export const isRasterFile = (f: File) => /\.tiff?$/i.test(f.name) || f.type === 'image/tiff'
