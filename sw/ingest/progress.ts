/**
 * @module ingest/progress
 * Progress of long requests (ingests), readable while they run. A client that wants to watch
 * sends a token of its choosing in `X-Outpost-Progress` with the long request and polls
 * `GET /api/component/outpost/progress/{token}` meanwhile. This works in the service worker
 * (one fetch event keeps running while the page's polls are other fetch events of the same
 * worker) and on the Node host alike; the long request itself still answers as usual, so
 * clients that know nothing of it (GDAL, ngw-connector) are served unchanged. Progress lives
 * in memory only, a few minutes after the request ends.
 *
 * The same token cancels: `DELETE …/progress/{token}` aborts the job's signal; the work stops
 * at its next check and the request answers `requestCancelled`, having created nothing (the
 * create's main write checks the signal inside its transaction, so a cancel that comes in time
 * always wins, and one that comes after the commit is told the job has ended, with its result).
 */
import { ApiError, type ErrorBody } from '../core/error.ts'

export const PROGRESS_HEADER = 'x-outpost-progress'
/** Tokens are the client's: long enough to be unguessable, short enough to be a path segment. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,64}$/
/** How long a finished job's last state stays readable. */
const KEEP_MS = 5 * 60 * 1000

export type JobState = 'running' | 'done' | 'failed'

/** What the progress endpoint answers. */
export interface ProgressBody {
  state: JobState
  /** What is happening now: `reading`, `converting`, `loading`, `indexing`, `saving`… */
  stage: string
  /** Features (or bytes) done in this stage, and the total when known. */
  done: number
  total: number | null
  /** The created resource, once done. */
  result?: { id: number }
  /** The error body the long request answered, once failed. */
  error?: ErrorBody
  /** Milliseconds spent in each stage so far, in order (where the time goes; `gdal` is GDAL's start). */
  timings: Record<string, number>
}

/** The reporting side, handed to the work. A no-op when nobody watches. */
export interface Progress {
  stage(name: string, total?: number | null): void
  done(n: number): void
}

export const SILENT: Progress = { stage() {}, done() {} }

/** What the cancelled request answers. */
export const requestCancelled = () => new ApiError(409, 'Request cancelled', {
  message: 'The request was cancelled before it finished; nothing was created.',
  exception: 'nextgisweb.core.exception.OperationalError', data: { cancelled: true } })

/** A cancel that came too late: the job already answered (`data` has its state and result). */
const alreadyEnded = (body: ProgressBody) => new ApiError(409, 'Request ended', {
  message: body.state === 'done' ? 'The request finished before it could be cancelled; what it created is in result.'
    : 'The request ended before it could be cancelled; nothing was created.',
  exception: 'nextgisweb.core.exception.OperationalError', data: { state: body.state, ...(body.result ? { result: body.result } : {}) } })

export class ProgressBoard {
  #jobs = new Map<string, { body: ProgressBody; expires: number; abort: AbortController }>()

  constructor(readonly now: () => number) {}

  /** Starts reporting under `token`; the returned handle reports and finishes the job. */
  start(token: string): TrackedProgress {
    this.#sweep()
    const job = { body: { state: 'running' as JobState, stage: 'starting', done: 0, total: null, timings: {} } as ProgressBody, expires: Infinity,
      abort: new AbortController() }
    this.#jobs.set(token, job)
    // Stage times by the monotonic clock (`now` may be a test's fixed one).
    let since = performance.now()
    const lap = () => {
      const t = performance.now()
      const timings = job.body.timings
      timings[job.body.stage] = Math.round((timings[job.body.stage] ?? 0) + t - since)
      since = t
    }
    const end = (patch: Partial<ProgressBody>) => {
      lap()
      Object.assign(job.body, patch)
      job.expires = this.now() + KEEP_MS
    }
    return {
      stage(name, total = null) { lap(); job.body.stage = name; job.body.done = 0; job.body.total = total },
      done(n) { job.body.done = n },
      finish(result) { end({ state: 'done', result }) },
      fail(error) { end({ state: 'failed', error }) },
      signal: job.abort.signal,
    }
  }

  /**
   * Cancels the running job under `token`: its signal aborts and its progress says so. Throws
   * a 409 when it already ended; `undefined` when nothing is reported under the token.
   */
  cancel(token: string): ProgressBody | undefined {
    const job = this.get(token) && this.#jobs.get(token)
    if (!job) return undefined
    if (job.body.state !== 'running') throw alreadyEnded(job.body)
    job.body.stage = 'cancelling'
    job.abort.abort(requestCancelled())
    return job.body
  }

  get(token: string): ProgressBody | undefined {
    this.#sweep()
    return this.#jobs.get(token)?.body
  }

  #sweep(): void {
    const t = this.now()
    for (const [k, j] of this.#jobs) if (j.expires < t) this.#jobs.delete(k)
  }
}

const BOARDS = new WeakMap<object, ProgressBoard>()

/** The progress board of an app (one per `Services`). */
export function progressBoard(owner: object, now: () => number = Date.now): ProgressBoard {
  let b = BOARDS.get(owner)
  if (!b) BOARDS.set(owner, b = new ProgressBoard(now))
  return b
}

export type TrackedProgress = Progress & { finish(result: { id: number }): void; fail(error: ErrorBody): void
  /** Aborted when a client cancels the job (`ProgressBoard.cancel`). */
  signal: AbortSignal }

const UNTRACKED: TrackedProgress = { ...SILENT, finish() {}, fail() {}, signal: new AbortController().signal }

/** The progress of a request: reported under its `X-Outpost-Progress` token, or nowhere. */
export function requestProgress(owner: object, request: Request): TrackedProgress {
  const token = request.headers.get(PROGRESS_HEADER)
  return token && TOKEN_PATTERN.test(token) ? progressBoard(owner).start(token) : UNTRACKED
}
