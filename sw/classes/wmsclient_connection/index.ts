/**
 * @module classes/wmsclient_connection
 * A remote WMS (reference ngw-services §3.1–3.2): `wmsclient_connection: {url, version,
 * username, password, insecure, referer, capcache}`. As in the original, the password is
 * returned to whoever has `connection.read` (it is encrypted at rest, as remote_connection's);
 * `capcache` (the stored capabilities) is read with `connection.connect`, and writing
 * `"query"` fetches GetCapabilities now (before the main write, outside its transaction),
 * `"clear"` drops them. Keys the user may not read are absent. Images of its layers kept for
 * offline use (ogc/client/getmap) go when the connection is deleted.
 */
import { forbidden, validationError } from '../../core/error.ts'
import { expectKeys, expectKind, expectObject } from '../../core/validate.ts'
import { prepareSecret, secretReader } from '../../resource/secret-member.ts'
import { WMS_VERSIONS, type Capcache, type WmsVersion } from '../../ogc/client/capabilities.ts'
import { queryCapabilities } from '../../ogc/client/request.ts'
import { forgetKept } from '../../ogc/client/getmap.ts'
import type { WmsConnectionState } from '../../ogc/client/types.ts'
import type { ClassContext, ClassData, ClassEnv, ClassFactory, Prepared } from '../types.ts'

const CLASS = 'wmsclient_connection'
const P = `$.${CLASS}`
const KEYS = ['url', 'version', 'username', 'password', 'insecure', 'referer', 'capcache']

interface ConnectionData {
  url: string
  version: WmsVersion
  username: string | null
  /** The encrypted password (core/secret), or `null`. */
  password: string | null
  insecure: boolean
  referer: string | null
  capcache: Capcache | null
}

/** The password encrypted and the capabilities fetched for this write, when the member asked for them. */
interface PreparedConnection extends Prepared {
  password?: string | null
  capcache?: Capcache
}

/** An absolute http(s) URL without fragment or credentials; its query stays (WMS URLs often carry `map=`). */
function urlOf(v: unknown): string {
  const s = expectKind<string>('str', v, `${P}.url`).trim()
  let u: URL | undefined
  try { u = new URL(s) } catch { /* below */ }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.hash || u.username || u.password || s.length > 2048) {
    throw validationError(`Service url is not valid: expected an http(s) URL without fragment or credentials - at \`${P}.url\``)
  }
  return u.href
}

function versionOf(v: unknown): WmsVersion {
  const s = expectKind<string>('str', v, `${P}.version`)
  if (!(WMS_VERSIONS as readonly string[]).includes(s)) throw validationError(`Invalid version '${s}'; expected one of 1.1.1, 1.3.0 - at \`${P}.version\``)
  return s as WmsVersion
}

/** `capcache` as written: an action, `"query"` or `"clear"` (§3.1); `undefined` for none. */
function capcacheAction(m: Record<string, unknown>): 'query' | 'clear' | undefined {
  const a = m.capcache
  if (a === undefined || a === null) return undefined
  if (a !== 'query' && a !== 'clear') throw validationError(`Invalid capcache action '${String(a)}'; expected "query" or "clear" - at \`${P}.capcache\``)
  return a
}

/** Member `m` over `prev` without the password and the capabilities. */
function merged(m: Record<string, unknown>, prev: ConnectionData | undefined): ConnectionData {
  expectKeys(m, KEYS, P)
  if (!prev && m.url === undefined) throw validationError(`Field \`url\` is required - at \`${P}\``)
  const str = (k: string, fallback: string | null) => (m[k] === undefined ? fallback : expectKind<string | null>('str', m[k], `${P}.${k}`, true))
  return {
    url: m.url === undefined ? prev!.url : urlOf(m.url),
    version: m.version === undefined ? prev?.version ?? '1.1.1' : versionOf(m.version),
    username: str('username', prev?.username ?? null),
    password: prev?.password ?? null,
    insecure: m.insecure === undefined ? prev?.insecure ?? false : expectKind<boolean>('bool', m.insecure, `${P}.insecure`),
    referer: str('referer', prev?.referer ?? null),
    capcache: prev?.capcache ?? null,
  }
}

/** Whether the request's user has `connection.<permission>` on `id` (no evaluator: the demo's seeding, allowed). */
const may = async (ctx: ClassContext, id: number, permission: string) =>
  !ctx.acl || await ctx.acl.check(ctx.tx.acl, ctx.user, id, 'connection', permission) !== false

function apply(ctx: ClassContext, member: unknown, prev: ConnectionData | undefined): ConnectionData {
  const m = expectObject(member, P)
  const next = merged(m, prev)
  const prepared = ctx.prepared as PreparedConnection | undefined
  if (m.password !== undefined) next.password = prepared!.password!
  const action = capcacheAction(m)
  if (action === 'clear') next.capcache = null
  if (action === 'query') {
    if (!prepared?.capcache) throw validationError('The capabilities were not fetched: send the change again.')
    next.capcache = prepared.capcache
  }
  return next
}

export const wmsClientConnection: ClassFactory = (env: ClassEnv) => {
  const secrets = secretReader(env.platform)
  const decrypt = async (encrypted: string | null): Promise<string | null> => {
    if (encrypted === null) return null
    try {
      return await secrets.read(encrypted)
    } catch (err) {
      // Made with another key (a data folder moved without its key): it must be set again.
      env.platform.log('The password of a WMS connection cannot be decrypted', err)
      return null
    }
  }
  return {
    identity: CLASS,
    label: 'WMS connection',
    order: 80,
    category: 'external_connections',
    scopes: ['connection', 'resource'],
    interfaces: [],
    members: [CLASS],
    acceptsParent: (p) => p === 'resource_group',

    // The password is encrypted, and `capcache: "query"` fetched, before the main write.
    async prepare(penv, members): Promise<PreparedConnection | undefined> {
      const raw = members[CLASS]
      if (raw === undefined || raw === null || typeof raw !== 'object') return undefined
      const secret = await prepareSecret(env.platform, members, CLASS, true)
      const m = raw as Record<string, unknown>
      if (capcacheAction(m) !== 'query') return secret
      if (penv.resourceId !== undefined && penv.may && !await penv.may(penv.resourceId, 'connection', 'write')) {
        throw forbidden(`Changing connection ${penv.resourceId} needs the 'write' permission in scope 'connection'.`)
      }
      const prevRef = penv.resourceId === undefined ? undefined : await env.classes.ref(penv.resourceId)
      const prev = prevRef?.cls === CLASS ? prevRef.data as unknown as ConnectionData : undefined
      const conn = merged(m, prev)
      const password = secret ? (m.password as string | null) : await decrypt(conn.password)
      const capcache = await queryCapabilities(env.platform, { id: penv.resourceId ?? 0, url: conn.url, version: conn.version,
        username: conn.username, password }, penv.signal)
      return { ...(secret ?? { discard: async () => {}, settle: () => {} }), capcache }
    },

    create(ctx, _id, members) {
      if (members[CLASS] === undefined) throw validationError(`Object missing required field \`${CLASS}\` - at \`$\``)
      return apply(ctx, members[CLASS], undefined) as unknown as ClassData
    },

    async update(ctx, id, members, data) {
      if (members[CLASS] === undefined) return data
      if (!await may(ctx, id, 'write')) throw forbidden(`Changing connection ${id} needs the 'write' permission in scope 'connection'.`)
      return apply(ctx, members[CLASS], data as unknown as ConnectionData) as unknown as ClassData
    },

    // The passwords are decrypted before the read that serializes them (WebCrypto is asynchronous).
    async load(ids) {
      for (const ref of await env.classes.refs(ids)) if (ref?.cls === CLASS) await decrypt((ref.data as unknown as ConnectionData).password)
    },

    async serialize(ctx, id, raw) {
      const d = raw as unknown as ConnectionData
      const out: Record<string, unknown> = {}
      if (await may(ctx, id, 'read')) {
        Object.assign(out, { url: d.url, version: d.version, username: d.username,
          password: d.password === null ? null : secrets.known(d.password) ?? null, insecure: d.insecure, referer: d.referer })
      }
      if (await may(ctx, id, 'connect')) out.capcache = d.capcache
      return { [CLASS]: out }
    },

    // The images its layers kept for offline use go once the delete has committed.
    remove: (_ctx, id) => () => forgetKept(env.platform.store, id),

    capabilities: {
      wmsConnection: {
        async connection(ref): Promise<WmsConnectionState> {
          const d = ref.data as unknown as ConnectionData
          return { id: ref.id, url: d.url, version: d.version, username: d.username, password: await decrypt(d.password), capcache: d.capcache }
        },
      },
    },
  }
}
