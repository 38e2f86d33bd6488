/**
 * @module classes/spatialdb_connection
 * A team's own PostGIS database (issue 24; the original's `postgis_connection`, reference
 * ngw-services §4.1): `spatialdb_connection: {hostname, port, database, username, password,
 * sslmode}`. The password is encrypted at rest as remote_connection's is (core/secret) and,
 * as in the original, returned to whoever has `connection.read` (NextGIS Connect builds its
 * QGIS connection from it); without that permission the member is empty. Changing the member
 * needs `connection.write`. Pools are the port's (sw/postgres/external), rebuilt there when
 * the parameters change and closed here when the connection is deleted.
 */
import { forbidden, validationError } from '../../core/error.ts'
import { expectKeys, expectObject } from '../../core/validate.ts'
import { prepareSecret, preparedSecret, secretReader } from '../../resource/secret-member.ts'
import { noDatabaseHere } from '../../spatialdb/errors.ts'
import { nameOf, portOf, required, sslmodeOf } from '../../spatialdb/params.ts'
import type { SpatialDbParams, SpatialDbSource } from '../../port/spatialdb.ts'
import type { ClassContext, ClassData, ClassFactory } from '../types.ts'

const CLASS = 'spatialdb_connection'
const PATH = `$.${CLASS}`
const KEYS = ['hostname', 'port', 'database', 'username', 'password', 'sslmode']

/** The parameters as stored: `password` is the encrypted one (core/secret). */
type ConnectionData = SpatialDbParams

/** Whether the request's user has `connection.<permission>` on `id` (no evaluator: the demo's seeding, allowed). */
const may = async (ctx: ClassContext, id: number, permission: string) =>
  !ctx.acl || await ctx.acl.check(ctx.tx.acl, ctx.user, id, 'connection', permission) !== false

function apply(ctx: ClassContext, member: unknown, prev: ConnectionData | undefined): ConnectionData {
  const m = expectObject(member, PATH)
  expectKeys(m, KEYS, PATH)
  if (!prev) for (const k of ['hostname', 'database', 'username', 'password']) if (m[k] === undefined) throw required(k, PATH)
  const next: ConnectionData = prev ? { ...prev } : {} as ConnectionData
  if (m.hostname !== undefined) next.hostname = nameOf(m.hostname, `${PATH}.hostname`)
  if (m.port !== undefined || !prev) next.port = m.port === undefined ? null : portOf(m.port, `${PATH}.port`)
  if (m.database !== undefined) next.database = nameOf(m.database, `${PATH}.database`)
  if (m.username !== undefined) next.username = nameOf(m.username, `${PATH}.username`)
  if (m.sslmode !== undefined || !prev) next.sslmode = m.sslmode === undefined ? null : sslmodeOf(m.sslmode, `${PATH}.sslmode`)
  if (m.password !== undefined) next.password = preparedSecret(ctx)!
  return next
}

export const spatialDbConnection: ClassFactory = (env) => {
  const secrets = secretReader(env.platform)
  const decrypt = async (id: number, encrypted: string) => {
    try {
      return await secrets.read(encrypted)
    } catch {
      // Made with another key (a data folder moved without its secret.key).
      throw validationError(`The password of connection ${id} cannot be decrypted with this server's key: set it again.`)
    }
  }
  return {
    identity: CLASS,
    label: 'PostGIS connection',
    order: 50,
    category: 'external_connections',
    scopes: ['connection', 'resource'],
    interfaces: [],
    members: [CLASS],
    acceptsParent: (p) => p === 'resource_group',

    // The password is encrypted before the main write (resource/secret-member.ts); it is never null.
    prepare: (_penv, members) => prepareSecret(env.platform, members, CLASS, false),

    create(ctx, _id, members) {
      if (!env.spatialDb) throw noDatabaseHere()
      if (members[CLASS] === undefined) throw required(CLASS, '$')
      return apply(ctx, members[CLASS], undefined) as unknown as ClassData
    },

    async update(ctx, id, members, data) {
      if (members[CLASS] === undefined) return data
      if (!await may(ctx, id, 'write')) throw forbidden(`Changing connection ${id} needs the 'write' permission in scope 'connection'.`)
      return apply(ctx, members[CLASS], data as unknown as ConnectionData) as unknown as ClassData
    },

    // The passwords are decrypted before the read that serializes them (WebCrypto is asynchronous).
    async load(ids) {
      for (const ref of await env.classes.refs(ids)) {
        if (ref?.cls === CLASS) await decrypt(ref.id, (ref.data as unknown as ConnectionData).password).catch(() => undefined)
      }
    },

    // In clear to whoever may read the connection, as the original (reference §4.1); null when it cannot be decrypted.
    async serialize(ctx, id, raw) {
      const d = raw as unknown as ConnectionData
      if (!await may(ctx, id, 'read')) return { [CLASS]: {} }
      return { [CLASS]: { hostname: d.hostname, port: d.port === null ? null : String(d.port), database: d.database,
        username: d.username, password: secrets.known(d.password) ?? null, sslmode: d.sslmode } }
    },

    // Its pool's connections end once the delete has committed.
    remove: (_ctx, id) => async () => { await env.spatialDb?.forget(id) },

    capabilities: {
      spatialDbConnection: {
        async source(ref): Promise<SpatialDbSource> {
          const d = ref.data as unknown as ConnectionData
          return { id: ref.id, params: { hostname: d.hostname, port: d.port, database: d.database, username: d.username,
            password: await decrypt(ref.id, d.password), sslmode: d.sslmode } }
        },
      },
    },
  }
}
