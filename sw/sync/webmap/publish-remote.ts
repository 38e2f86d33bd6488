/**
 * @module sync/webmap/publish-remote
 * Writes of a publish to the team's server, each one named for what it does ("create layer
 * 'Wells' in group 12"), so a refusal there says what was refused and to whom; and the log of
 * what was made, so a publish that fails deletes it again (newest first).
 */
import { ApiError } from '../../core/error.ts'
import type { RemoteClient } from '../client.ts'
import { loginOf, remoteFailed, remoteReadRefused, remoteReason } from '../errors.ts'

/** Statuses of the team's server that are its answer to what we sent (a refusal, a bad value), not its failure. */
const REFUSALS = [400, 401, 403, 404, 409, 422]

const DISPLAY_NAME_NOT_UNIQUE = 'nextgisweb.resource.exception.DisplayNameNotUnique'
/** Names tried by `createUnique`. */
const UNIQUE_TRIES = 5

/**
 * The team's server refuses the account a write a publish needs (403). A 422 as a refused read
 * is (sync/errors.ts `remoteReadRefused`): both servers work; the account lacks a permission
 * there, which only the remote's administrator or the connection's settings can change.
 */
export function remoteWriteRefused(url: string, username: string | null, what: string, status: number, remote: Record<string, unknown>,
  needs = 'resource.create and resource.manage_children in the chosen group there and on the layers whose styles it adds'): ApiError {
  return new ApiError(422, 'Remote write refused', {
    message: `The server ${url} does not let ${loginOf(username)} ${what}: publishing a web map needs ${needs}. `
      + 'Ask its administrator for it, or connect with another account.',
    data: { url, login: username, remote_status: status, remote }, exception: 'outpost.webmap_publish.RemoteWriteRefused' })
}

/** The team's server refused what a publish sent (a name taken, a value it does not take): its title, never its body. */
export function remoteRefusedPublish(url: string, what: string, status: number, remote: Record<string, unknown>): ApiError {
  const taken = remote.exception === DISPLAY_NAME_NOT_UNIQUE
  const why = taken ? 'a resource of that name is there already (rename the map or choose another group)'
    : `it answered ${status}${typeof remote.title === 'string' ? ` (${remote.title})` : ''}`
  return new ApiError(422, 'Remote write refused', { message: `The server ${url} did not ${what}: ${why}.`,
    data: { url, remote_status: status, remote }, exception: 'outpost.webmap_publish.RemoteRefused' })
}

export class RemoteWriter {
  /** Resources made on the team's server, in the order made. */
  readonly created: number[] = []
  /** Other things made there (annotations): the paths that delete them. */
  readonly madePaths: string[] = []

  constructor(readonly client: RemoteClient) {}

  /** `method path body` on the team's server; `what` names it in a refusal ("create layer 'Wells'"). */
  async send(method: string, path: string, body: unknown, what: string): Promise<any> { // reason: the team's server's JSON, read by the caller
    const { url, username } = this.client.creds
    const res = await this.client.json(method, path, body, REFUSALS)
    if (res.status < 400) return res.body
    const remote = remoteReason(res.status, res.body, 'application/json')
    // A wrong password is said as a refused read says it; a guest's 401 is a refusal like a 403.
    if (res.status === 401 && username !== null) throw remoteReadRefused(url, username, 401, 0)
    if (res.status === 401 || res.status === 403) throw remoteWriteRefused(url, username, what, res.status, remote)
    if (res.status === 404) throw remoteFailed(url, 404, res.body)
    throw remoteRefusedPublish(url, what, res.status, remote)
  }

  /** Creates a resource there; answers its id, logged for `undo`. */
  async create(body: Record<string, unknown>, what: string): Promise<number> {
    const made = await this.send('POST', '/api/resource/', body, what)
    const id = Number(made?.id)
    if (!Number.isSafeInteger(id)) throw remoteFailed(this.client.creds.url, 502, undefined)
    this.created.push(id)
    return id
  }

  /**
   * `create`, with ` (2)`, ` (3)`… after the name while one of that name is there (a layer made
   * again in a map's group, a style beside a linked layer's own): the first free name of a few.
   */
  async createUnique(body: { resource: { display_name: string } & Record<string, unknown> } & Record<string, unknown>, what: string): Promise<number> {
    const name = body.resource.display_name
    for (let n = 1; ; n++) {
      try {
        return await this.create({ ...body, resource: { ...body.resource, display_name: n === 1 ? name : `${name} (${n})` } }, what)
      } catch (err) {
        if (n >= UNIQUE_TRIES || !(err instanceof ApiError && err.opts.data?.remote && (err.opts.data.remote as { exception?: unknown }).exception === DISPLAY_NAME_NOT_UNIQUE)) throw err
      }
    }
  }

  /** Deletes what was made, newest first (a group after what is in it); what is gone already is no matter. */
  async undo(log: (message: string, err: unknown) => void): Promise<void> {
    const paths = [...this.madePaths.reverse(), ...[...this.created].reverse().map((id) => `/api/resource/${id}`)]
    for (const path of paths) {
      await this.client.json('DELETE', path, undefined, [404]).catch((err: unknown) => log(`Undoing a publish: DELETE ${path} failed`, err))
    }
  }
}
