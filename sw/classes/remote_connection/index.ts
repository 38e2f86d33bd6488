/**
 * @module classes/remote_connection
 * A team's server (an Outpost Node host or the original) and how to log in there:
 * `remote_connection: {url, username, password}`. The password is encrypted at rest with the
 * host's secret key (AES-GCM: a non-extractable key in the worker's IndexedDB, a 0600 key file
 * in the Node host's data folder) and never returned. Layers link to remote layers through a
 * connection (sync/); its capability hands the sync component the decrypted credentials.
 */
import { validationError } from '../../core/error.ts'
import { expectKind, expectKeys, expectObject } from '../../core/validate.ts'
import { decryptSecret } from '../../core/secret.ts'
import { prepareSecret, preparedSecret } from '../../resource/secret-member.ts'
import type { Credentials } from '../../sync/types.ts'
import type { ClassContext, ClassData, ClassFactory } from '../types.ts'

const CLASS = 'remote_connection'

interface ConnectionData {
  url: string
  username: string | null
  /** The encrypted password (core/secret), or `null`. */
  password: string | null
}

/** An absolute http(s) URL without query or fragment; a trailing slash is dropped. */
function urlOf(v: unknown): string {
  const s = expectKind<string>('str', v, '$.remote_connection.url').trim()
  let u: URL
  try {
    u = new URL(s)
  } catch {
    throw validationError(`'${s}' is not an absolute URL - at \`$.remote_connection.url\``)
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.search || u.hash || u.username || u.password) {
    throw validationError('The URL must be http(s), without query, fragment or credentials - at `$.remote_connection.url`')
  }
  return u.href.replace(/\/+$/, '')
}

function apply(ctx: ClassContext, member: unknown, prev: ConnectionData | undefined): ConnectionData {
  const m = expectObject(member ?? {}, '$.remote_connection')
  expectKeys(m, ['url', 'username', 'password'], '$.remote_connection')
  if (!prev && m.url === undefined) throw validationError('Field `url` is required - at `$.remote_connection`')
  const next: ConnectionData = { url: m.url === undefined ? prev!.url : urlOf(m.url),
    username: prev?.username ?? null, password: prev?.password ?? null }
  if (m.username !== undefined) next.username = expectKind<string | null>('str', m.username, '$.remote_connection.username', true)
  if (m.password !== undefined) next.password = preparedSecret(ctx)
  return next
}

export const remoteConnection: ClassFactory = (env) => ({
  identity: CLASS,
  label: 'Remote connection',
  order: 90,
  category: 'external_connections',
  scopes: ['connection', 'resource'],
  interfaces: [],
  members: [CLASS],
  acceptsParent: (p) => p === 'resource_group',

  // The password is encrypted before the main write (resource/secret-member.ts); null removes it.
  prepare: (_env, members) => prepareSecret(env.platform, members, CLASS, true),

  create(ctx, _id, members) {
    if (members[CLASS] === undefined) throw validationError('Remote connection member is required - at `$.remote_connection`')
    return apply(ctx, members[CLASS], undefined) as unknown as ClassData
  },

  update(ctx, _id, members, data) {
    return members[CLASS] === undefined ? data : apply(ctx, members[CLASS], data as unknown as ConnectionData) as unknown as ClassData
  },

  // The password is never returned, only whether there is one.
  serialize(_ctx, _id, raw) {
    const d = raw as unknown as ConnectionData
    return { [CLASS]: { url: d.url, username: d.username, password_set: d.password !== null } }
  },

  capabilities: {
    remoteConnection: {
      async credentials(ref): Promise<Credentials | undefined> {
        const d = ref.data as unknown as ConnectionData
        let password: string | null = null
        if (d.password !== null) {
          try {
            password = await decryptSecret(await env.platform.secretKey(), d.password)
          } catch (err) {
            // Made with another key (a data folder moved without its key): ask for it again.
            env.platform.log(`The password of connection ${ref.id} cannot be decrypted`, err)
          }
        }
        return { url: d.url, username: d.username, password }
      },
    },
  },
})
