/**
 * Requests for the fuzz runs (test/api/fuzz.test.ts on the Node host, test/e2e/fuzz-sw.spec.ts
 * in the service worker): every route group, with ids at the limits, bodies of wrong types,
 * deep nesting, long strings, invalid UTF-8 and wrong content types, odd headers and cookies;
 * styles and filters with patterns that backtrack or the linear engine refuses, huge symbols
 * and XML with entities (issue 19).
 * Deterministic: the same seed gives the same requests. Host-neutral (no Node APIs).
 */
import type { RequestOptions } from '../api/harness.ts'

/** mulberry32: a small, good-enough seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Ids of things the run created first, so that some requests reach real objects. */
export interface Known {
  group: number
  layer: number
  fid: number
  aid: number
  upload: string
  /** An engine style under `layer`, changed by fuzzed PUTs and drawn by fuzzed tiles. */
  style: number
  /**
   * Remote connections to hostile servers (test/api/hostile-remote.ts): their listings and
   * links may answer 502 ExternalServiceError, and nothing worse. None: no such requests.
   */
  remotes?: number[]
  /**
   * An ordinary user who reads `group` (and its layer) and nothing else, and a group with a
   * layer that only the administrator reads, named and filled with `SECRET`: requests as that
   * user or the guest aim at both, and nothing of the second may reach them (issue 21).
   */
  reader?: { id: number; login: string; password: string }
  secret?: { group: number; layer: number; fid: number }
  /**
   * A PostGIS connection to a real database and a layer over its table `table` (columns `name`
   * text, `n` integer, `geom` points), with feature `fid` (the Node host; the service worker has
   * none: there, creating either class is a 422). Requests aimed at them may answer 503
   * ExternalDatabaseError (a fuzzed change pointed the connection elsewhere), and nothing worse.
   */
  spatialdb?: { connection: number; layer: number; fid: number; table: string; params: Record<string, unknown> }
}

/** Text in the names and features only the administrator may read (a fuzz run's leak check looks for it). */
export const SECRET = 'fuzz-secret-7c1e'

/** Patterns that backtrack exponentially or polynomially in RegExp, or that RE2 refuses. */
const EVIL_REGEXES = ['^(a+)+$', '^(a+)+$', '^(a|aa)+$', '(x+x+)+y', '^(\\w+\\s?)*$', '(a)\\1', 'a(?=b)', '(?<!a)b', '[', 'a{1001}',
  '((a{100}){100}){100}', 'a'.repeat(1001), '(?i)A+!', '\\p{L}+', '']
const EVIL_LIKES = ['%a%a%a%a%a%a%a%a%a%a%a%a%b', '%', '_', '%'.repeat(1001), '\\%', 'a%_%_%_%_%_%_b', '[a-z]*']
/** A value to match them against: 36 `a`s and a `!` (minutes for `^(a+)+$` in RegExp). */
export const EVIL_TEXT = 'a'.repeat(36) + '!'

export interface FuzzRequest {
  method: string
  path: string
  opts: RequestOptions
  /** It asks a hostile remote: a 502 ExternalServiceError is a right answer. */
  remote?: boolean
  /** It reaches a team's PostGIS database: a 503 ExternalDatabaseError is a right answer. */
  database?: boolean
  /** Who asks: the administrator, the ordinary user of `Known.reader`, or anyone else (the guest, failed credentials). */
  as: 'admin' | 'reader' | 'guest'
}

/** The exception class of a 502 for a remote that failed: the one 5xx a fuzz run accepts, for requests to hostile remotes. */
export const EXTERNAL_SERVICE_ERROR = 'nextgisweb.core.exception.ExternalServiceError'
/** The exception class of a 503 for a team's PostGIS database that failed: accepted for requests aimed at one. */
export const EXTERNAL_DATABASE_ERROR = 'nextgisweb.core.exception.ExternalDatabaseError'

const ODD_IDS = ['-1', '0', '1', '2', '9007199254740991', '9007199254740992', '9007199254740993', '18446744073709551616',
  '18446744073709551617', '1e400', 'abc', '%00', '%2e%2e', '', '00', '1.5', '99999999999999999999999999999', '0x10', ' 1']
const KEYS = ['resource', 'cls', 'parent', 'id', 'display_name', 'keyname', 'description', 'permissions', 'owner_user', 'resmeta',
  'items', 'vector_layer', 'srs', 'geometry_type', 'fields', 'datatype', 'feature_layer', 'lookup_table', 'geom', 'extensions',
  'attachment', 'file_upload', 'size', 'name', 'mime_type', 'login', 'password', 'old_password', 'geoservices', 'icons', 'type',
  'url', 'delete', 'intersects', '__proto__', 'constructor', '']
const STRINGS = ['', ' ', 'x', 'POINT(1 2)', 'POINT(1e308 -1e308)', 'POLYGON((0 0,1 0,1 1,0 0))', 'LINESTRING(0 0)', 'POINT EMPTY',
  'MULTIPOLYGON(((0 0,1 1,0 0)))', 'resource_group', 'vector_layer', 'lookup_table', 'POINT', 'STRING', 'INTEGER', 'BIGINT',
  'BOOLEAN', 'DATE', 'text/plain\r\nX: y', 'image/png', 'javascript:alert(1)', '2024-02-30', '9007199254740993', '-7', '1.5',
  '\u0000', '\ud800', '../../etc/passwd', '%E0%A4%A', '🙂', '<script>', "'; DROP TABLE resource; --", 'administrator', 'guest']
const NUMBERS = [0, -0, 1, -1, 1.5, -7, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e308, -1e308, 1e-320, 0.1, 123456789]
const CONTENT_TYPES = [undefined, 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data',
  'multipart/form-data; boundary=x', 'application/offset+octet-stream', 'application/octet-stream', 'text/html; charset=utf-8', '\u0001']
const COOKIES = ['ngw_sid=%E0%A4%A', 'ngw_sid=', 'ngw_sid=%', 'ngw_sid=deadbeef', 'ngw_sid=' + 'a'.repeat(5000), 'a=b; ngw_sid=%zz',
  'ngw_sid="\\u0000"', ';;;', 'ngw_sid=1; ngw_sid=2']

export class Generator {
  readonly #r: () => number
  /** The objects requests aim at; the runner replaces them when a request deleted them. */
  known: Known
  constructor(seed: number, known: Known) {
    this.#r = prng(seed)
    this.known = known
  }

  #int(n: number): number { return Math.floor(this.#r() * n) }
  #pick<T>(xs: readonly T[]): T { return xs[this.#int(xs.length)]! }
  #chance(p: number): boolean { return this.#r() < p }

  /** An id: usually a real one, often one at the limits. */
  #id(real: number | string): string {
    return this.#chance(0.75) ? String(real) : this.#pick(ODD_IDS)
  }

  #string(): string {
    if (this.#chance(0.03)) return 'x'.repeat(1000 + this.#int(100_000))
    if (this.#chance(0.3)) return this.#pick(STRINGS)
    const len = this.#int(20)
    let s = ''
    for (let i = 0; i < len; i++) s += String.fromCharCode(this.#chance(0.8) ? 32 + this.#int(95) : this.#int(0x3000))
    return s
  }

  /** Any JSON value, to `depth` levels. */
  json(depth = 3): unknown {
    const k = this.#int(depth > 0 ? 8 : 5)
    switch (k) {
      case 0: return null
      case 1: return this.#chance(0.5)
      case 2: return this.#pick(NUMBERS) * (this.#chance(0.2) ? this.#r() : 1)
      case 3: case 4: return this.#string()
      case 5: return Array.from({ length: this.#int(4) }, () => this.json(depth - 1))
      default: return Object.fromEntries(Array.from({ length: this.#int(5) }, () => [this.#pick(KEYS), this.json(depth - 1)]))
    }
  }

  /** A body shaped like a real one for the route, with some members replaced by anything. */
  #shaped(kind: string): unknown {
    const k = this.known
    const shapes: Record<string, () => Record<string, unknown>> = {
      resource: () => ({ resource: { cls: this.#pick(['resource_group', 'vector_layer', 'lookup_table', 'nope']),
        parent: { id: this.#pick([0, k.group, k.layer, -1, 2 ** 64]) }, display_name: this.#string(), keyname: this.#chance(0.3) ? this.#string() : undefined },
        vector_layer: { srs: { id: this.#pick([3857, 4326, 0, 999999]) }, geometry_type: this.#pick(['POINT', 'POLYGON', 'X']),
          fields: [{ keyname: this.#string(), datatype: this.#pick(['STRING', 'INTEGER', 'BIGINT', 'REAL', 'BOOLEAN', 'DATE', 'X']) }] },
        lookup_table: { items: { a: 'b' } } }),
      move: () => ({ resource: { parent: { id: this.#pick([0, k.group, k.layer, 2 ** 64, -1]) }, display_name: this.#string() } }),
      feature: () => ({ geom: this.#pick([this.#string(), { type: 'Point', coordinates: [this.#pick(NUMBERS), this.#pick(NUMBERS)] }, null]),
        fields: { s: this.json(1), i: this.json(1), b: this.json(1), big: this.json(1), r: this.json(1), d: this.json(1), ok: this.json(1) },
        extensions: this.#chance(0.3) ? { description: this.json(1), attachment: this.#chance(0.5) ? [{ file_upload: { id: k.upload }, mime_type: this.json(1) }] : null } : undefined }),
      attachment: () => ({ file_upload: { id: this.#pick([k.upload, this.#string()]), size: 1 }, name: this.json(1), mime_type: this.#pick([...STRINGS, 'text/plain']),
        keyname: this.json(1) }),
      login: () => ({ login: this.#chance(0.5) ? this.#string() : this.json(1), password: this.json(1) }),
      password: () => ({ password: this.json(1), old_password: this.json(1), display_name: this.json(1) }),
      style: () => ({ resource: { cls: this.#pick(['engine_style', 'mapserver_style']), parent: { id: this.#pick([k.layer, k.layer, k.group]) },
        display_name: this.#string() }, [this.#pick(['engine_style', 'mapserver_style'])]: { xml: this.#chance(0.9) ? this.#styleXml() : this.json(1) } }),
      restyle: () => ({ [this.#pick(['engine_style', 'mapserver_style'])]: { xml: this.#styleXml() } }),
      link: () => ({ resource: { cls: 'vector_layer', parent: { id: this.#pick([0, k.group]) }, display_name: this.#string() },
        vector_layer: { remote: { connection: { id: this.#pick(k.remotes ?? [0]) }, resource: { id: this.#pick([1, 0, -1, 2 ** 53, 7]) } } } }),
      // PostGIS connections and layers (issue 24) in either spelling, each member at its edges.
      spatialdb_connection: () => ({ resource: { cls: this.#pick(['spatialdb_connection', 'postgis_connection']), parent: { id: this.#pick([0, k.group, k.layer]) },
        display_name: this.#string() }, [this.#pick(['spatialdb_connection', 'postgis_connection'])]: this.#connectionMember() }),
      spatialdb_layer: () => ({ resource: { cls: this.#pick(['spatialdb_layer', 'postgis_layer']), parent: { id: this.#pick([0, k.group, k.layer]) },
        display_name: this.#string() }, [this.#pick(['spatialdb_layer', 'postgis_layer'])]: this.#layerMember(), ...this.#featureLayerMember() }),
      spatialdb_change: () => (this.#chance(0.5) ? { [this.#pick(['spatialdb_connection', 'postgis_connection'])]: this.#connectionMember(true) }
        : { [this.#pick(['spatialdb_layer', 'postgis_layer'])]: this.#layerMember(true), ...this.#featureLayerMember() }),
      spatialdb_feature: () => ({ geom: this.#pick([this.#string(), 'POINT(5 5)', 'POINT EMPTY', 'LINESTRING(0 0,1 1)', null]),
        fields: { name: this.json(1), n: this.#pick([this.json(1), 2 ** 31, -(2 ** 31) - 1, 7]) },
        extensions: this.#chance(0.4) ? { description: this.json(1), attachment: this.#chance(0.5) ? [{ file_upload: { id: k.upload }, keyname: this.json(1) }] : null } : undefined }),
      spatialdb_check: () => ({ connection: this.#chance(0.5) ? { id: this.#pick([k.spatialdb?.connection ?? 0, 0, k.layer, -1]) } : this.#connectionMember(),
        layer: this.#chance(0.3) ? { id: this.#pick([k.spatialdb?.layer ?? 0, k.layer, 0]) } : this.#layerMember(true) }),
      // WMS connections and layers (issue 26): each member at its edges; a URL that fails at once (nothing listens on port 9).
      wmsclient: () => ({ resource: { cls: this.#pick(['wmsclient_connection', 'wmsclient_layer']), parent: { id: this.#pick([0, k.group, k.layer]) },
        display_name: this.#string() },
        wmsclient_connection: { url: this.#pick(['http://127.0.0.1:9/wms?map=a', 'ftp://x', '', 7, null, 'http://[::1', 'https://u:p@h.example/']),
          version: this.#pick(['1.1.1', '1.3.0', '2', null]), username: this.json(1), password: this.json(1),
          capcache: this.#pick(['query', 'clear', 'flush', null, 1]), insecure: this.json(1), referer: this.json(1) },
        wmsclient_layer: { connection: { id: this.#pick([0, k.group, k.layer, -1, 2 ** 64]) }, wmslayers: this.#pick(['a', '', 5, 'x'.repeat(2000)]),
          imgformat: this.#pick(['image/png', '', null]), srs: { id: this.#pick([3857, 4326, 0, 999999]) },
          remote_srs: this.#pick([undefined, { id: 4326 }, { id: -1 }, 'x', null]),
          vendor_params: this.#pick([{}, { a: 'b' }, { a: 1 }, [], 'x', { ['x'.repeat(100)]: 'y' }, { SRS: 'EPSG:1' }]) } }),
      catalogue: () => ({ geoservices: [{ id: this.#pick([1, 2, -1, 2 ** 64]), guid: '00000000-0000-4000-8000-000000000001', name: this.#string(),
        type: this.#pick(['tms', 'wms', 'x']), url: this.#pick(STRINGS), created_at: '2024-01-01T00:00:00Z' }] }),
    }
    const body = (shapes[kind] ?? shapes.feature!)()
    // Replace one member (or one inside `resource`) by anything.
    if (this.#chance(0.5)) {
      const target = this.#chance(0.5) && typeof body.resource === 'object' ? body.resource as Record<string, unknown> : body
      target[this.#pick(KEYS)] = this.json(2)
    }
    return body
  }

  /** A PostGIS connection's member: mostly the real database's parameters, each sometimes replaced by an edge. */
  #connectionMember(partial = false): Record<string, unknown> {
    const real = this.known.spatialdb?.params ?? { hostname: '127.0.0.1', port: 1, database: 'gis', username: 'ngw', password: 'x' }
    const edges: Record<string, unknown[]> = {
      // Only names that fail at once: a random host name would wait for DNS.
      hostname: ['127.0.0.1', '', '/nonexistent', 7, null, '::1', 'localhost'],
      port: [String(real.port), 1, 'abc', 70000, -1, null, 1.5, '0'],
      database: ['', 'no_such_db', null, 'template0'],
      username: ['', null, 5, 'nobody'],
      password: ['', null, 1, 'wrong'],
      sslmode: [null, 'disable', 'require', 'verify-full', 'sometimes', 1],
    }
    const m: Record<string, unknown> = {}
    for (const [key, values] of Object.entries(edges)) {
      if (partial && this.#chance(0.6)) continue
      m[key] = this.#chance(0.7) ? real[key] ?? null : this.#pick(values)
    }
    return m
  }

  /** A PostGIS layer's member over the real table, each member sometimes an edge (quotes, catalogs, wrong types). */
  #layerMember(partial = false): Record<string, unknown> {
    const sdb = this.known.spatialdb
    const choices: Record<string, unknown[]> = {
      connection: [{ id: sdb?.connection ?? 0 }, { id: sdb?.connection ?? 0 }, { id: 0 }, { id: this.known.layer }, { id: -1 }, { id: 2 ** 64 }, 'x'],
      schema: ['public', 'public', 'other', '', 'pg_catalog', 'information_schema', null, 1],
      table: [sdb?.table ?? 'roads', sdb?.table ?? 'roads', 'nope', '', 'x"; DROP TABLE y; --', 'spatial_ref_sys', 'geometry_columns', null],
      column_id: ['id', 'id', 'name', 'geom', 'n', 'nope', '', null],
      column_geom: ['geom', 'geom', 'id', 'name', 'nope', null],
      geometry_type: [undefined, 'POINT', 'POLYGON', 'POINTZ', 'X', null],
      geometry_srid: [undefined, 3857, 4326, 0, -1, 2 ** 53, null, '3857'],
      srs: [{ id: 3857 }, { id: 4326 }, { id: 0 }, { id: 999999 }, null],
      fields: ['update', 'update', 'keep', 'x', null, undefined, true],
    }
    const m: Record<string, unknown> = {}
    for (const [key, values] of Object.entries(choices)) {
      if (partial && this.#chance(0.6)) continue
      const v = this.#pick(values)
      if (v !== undefined) m[key] = v
    }
    return m
  }

  /** Sometimes `feature_layer`: versioning (refused), field changes (no field may be added by hand). */
  #featureLayerMember(): Record<string, unknown> {
    if (!this.#chance(0.3)) return {}
    return { feature_layer: this.#pick([{ versioning: { enabled: this.#chance(0.5) } }, { fields: [{ keyname: this.#string(), datatype: 'STRING' }] },
      { fields: [{ id: this.#pick([1, 2, 999999]), display_name: this.#string(), grid_visibility: this.json(1) }] }, this.json(2)]) }
  }

  /**
   * XML for an engine style with one odd part (most are saved, so later tiles draw them): an
   * evil or refused pattern, a symbol or dash pattern of any size, a DOCTYPE, random text, or over 1 MiB.
   */
  #styleXml(): string {
    const odd = this.#pick(['regex', 'regex', 'like', 'symbol', 'pattern', 'doctype', 'text', 'size'])
    const re = this.#pick(EVIL_REGEXES), like = this.#pick(EVIL_LIKES)
    const expr = odd === 'regex' ? this.#pick([`/${re}/`, `/${re}/i`, `([s] ~ "${re}")`, `([s] ~* "${re}")`])
      : odd === 'like' ? this.#pick([`([s] like "${like}")`, `([s] ilike "${like}")`])
        : odd === 'text' ? this.#pick([`"${this.#string()}"`, `(${this.#string()})`]) : '/^a/'
    const n = odd === 'symbol' ? this.#pick([2, 100, 101, 2000]) : 4
    const points = Array.from({ length: n * 2 }, (_, i) => (odd === 'symbol' && this.#chance(0.02) ? this.#pick(['x', '1e400', '-99']) : String(i % 7))).join(' ')
    const pattern = Array.from({ length: odd === 'pattern' ? this.#pick([0, 10, 11, 500]) : 2 }, () => 1 + this.#int(9)).join(' ')
    const head = odd === 'doctype' ? this.#pick(['<!DOCTYPE map>', '<!DOCTYPE map [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
      '<!DOCTYPE map [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>', '<!DOCTYPE map [']) : ''
    return `${head}<map><symbol><name>sym</name><type>vector</type><filled>true</filled><points>${points}</points></symbol>
<layer><classitem>s</classitem><class><name>${head.includes('ENTITY') ? '&x;&b;' : 'c'}</name><expression>${expr}</expression>
<style><symbol>sym</symbol><size>${this.#pick([1, 8, 1e308, -1])}</size><pattern>${pattern}</pattern>
<color red="230" green="20" blue="20"/></style></class></layer></map>${odd === 'size' ? `<!--${'x'.repeat(this.#pick([1000, 1_100_000]))}-->` : ''}`
  }

  /** A render filter[] in the original's JSON, with evil LIKE patterns. */
  #renderFilter(): string {
    const op = this.#pick(['like', '!like', 'ilike', '!ilike', '==', 'in'])
    return JSON.stringify(this.#chance(0.8) ? [op, ['get', 's'], this.#pick(EVIL_LIKES)] : this.json(3))
  }

  /** A body: shaped, any JSON, deeply nested, broken, or bytes that are not UTF-8. */
  #body(kind: string): Pick<RequestOptions, 'body' | 'raw' | 'bytesBase64'> {
    const k = this.#int(20)
    if (k < 9) return { body: this.#shaped(kind) }
    if (k < 12) return { body: this.json(4) }
    if (k === 12) return { raw: '['.repeat(2000 + this.#int(20_000)) + ']'.repeat(this.#chance(0.5) ? 100 : 22_000) }
    if (k === 13) return { raw: `{"resource": {"permissions": ${'['.repeat(100)}${']'.repeat(100)}}}` }
    if (k === 14) return { raw: this.#pick(['{', '{"a":', '[1,', 'nope', '\u0000', '1e400', '"\\ud800"', '{"a":1}{"b":2}', '']) }
    if (k === 15) return { bytesBase64: btoa(String.fromCharCode(...Array.from({ length: 1 + this.#int(64) }, () => this.#int(256)))) }
    if (k === 16) return { raw: `login=${encodeURIComponent(this.#string().replace(/[\ud800-\udfff]/g, "?"))}&password=%E0%A4%A&x=${'y'.repeat(this.#int(5000))}` }
    if (k === 17) return { raw: '--x\r\nContent-Disposition: form-data; name="file"; filename="' + this.#string() + '"\r\n\r\n' + this.#string() + (this.#chance(0.5) ? '\r\n--x--\r\n' : '') }
    return { body: this.#shaped(this.#pick(['resource', 'feature', 'attachment', 'login'])) }
  }

  #headers(): Record<string, string> {
    const h: Record<string, string> = {}
    const ct = this.#pick(CONTENT_TYPES)
    if (ct !== undefined) h['content-type'] = ct
    if (this.#chance(0.1)) h['x-outpost-cookie'] = this.#pick(COOKIES)
    if (this.#chance(0.1)) h.origin = this.#pick(['http://evil.example', 'null', 'http://127.0.0.1'])
    if (this.#chance(0.1)) h['tus-resumable'] = this.#pick(['1.0.0', '0.2', ''])
    if (this.#chance(0.1)) h['upload-length'] = this.#pick(['0', '5', '-1', '99999999999999999999', 'x', '1e3'])
    if (this.#chance(0.1)) h['upload-offset'] = this.#pick(['0', '3', '-1', 'x'])
    if (this.#chance(0.05)) h['upload-metadata'] = this.#pick(['name eC50eHQ=,mime_type dGV4dC9wbGFpbg0KWDogeQ==', 'name !!!', ',', 'a b c'])
    // Keys from a small pool: replays, reuse on other requests (422) and malformed keys.
    if (this.#chance(0.1)) h['idempotency-key'] = this.#pick(['k1', 'k2', '"k1"', '', 'x'.repeat(300), 'k\u00e9', '"'])
    if (this.#chance(0.05)) h['content-disposition'] = this.#pick(['attachment; filename="a.txt"', "filename*=UTF-8''%E0%A4%A", 'filename=../../x'])
    return h
  }

  /** Who asks: mostly the administrator (to reach deep code), sometimes the ordinary user, the guest or broken credentials. */
  #auth(): Pick<RequestOptions, 'auth' | 'headers'> {
    const k = this.#int(20)
    if (k < 11) return { auth: 'admin' }
    if (k < 14 && this.known.reader) return { auth: { login: this.known.reader.login, password: this.known.reader.password } }
    if (k < 14) return { auth: 'admin' }
    if (k < 18) return { auth: 'guest' }
    // Never a wrong password for the administrator: the run must not lock its own login.
    // Rare, as every wrong password costs a full PBKDF2 (by design).
    if (k === 18 && this.#chance(0.3)) return { auth: { login: `nobody-${this.#int(1000)}`, password: this.#string() } }
    if (k === 18) return { auth: 'admin' }
    return { auth: 'guest', headers: { authorization: this.#pick(['Basic !!!', 'Basic ' + btoa('no-colon'), 'Bearer x', 'Basic ' + btoa('\u00ff:\u00fe'), 'Basic']) } }
  }

  next(): FuzzRequest {
    const k = this.known
    const who = this.#auth()
    const as = who.auth === 'admin' ? 'admin' : typeof who.auth === 'object' && who.auth.login === k.reader?.login ? 'reader' : 'guest'
    // Those who may not read the secret layer aim at it too; the administrator never (its fuzzed
    // moves and rules would share it).
    const layer = () => this.#id(as !== 'admin' && k.secret && this.#chance(0.3) ? this.#pick([k.secret.layer, k.secret.group])
      : this.#chance(0.85) ? k.layer : k.group)
    const routes: Array<() => [string, string, string]> = [
      () => [this.#pick(['GET', 'PUT', 'DELETE', 'PATCH']), `/api/resource/${this.#id(this.#pick([k.group, k.layer, 0]))}`, 'move'],
      () => [this.#pick(['GET', 'POST']), `/api/resource/${this.#chance(0.2) ? '' : `?parent=${this.#id(k.group)}`}`, 'resource'],
      () => ['GET', `/api/resource/search/?${this.#pick(['', 'limit=', 'limit=99999999999999999999', 'id=1e400', 'order=-x', 'display_name__ilike=%25',
        'resmeta__json[a]={', 'parent_id__recursive=0', 'breadcrumb=true&limit=2', `cls__in=${this.#string()}`, 'owner_user__in=1,,2'])}`, 'resource'],
      () => ['GET', `/api/resource/${layer()}/permission`, 'resource'],
      () => [this.#pick(['GET', 'POST', 'PATCH', 'DELETE']), `/api/resource/${layer()}/feature/${this.#pick(['', '?limit=2', '?fld_s__eq=x', '?order_by=-s',
        '?srs=999999', '?geom_format=geojson&srs=4326', '?intersects=POLYGON((0 0', '?like=%', '?fld_i__gt=1.5', '?fld_big__eq=99999999999999999999',
        '?dt_format=iso&bigint_format=string', '?geom_null=true', '?limit=-1', '?offset=1e400'])}`, 'feature'],
      () => [this.#pick(['GET', 'PUT', 'DELETE']), `/api/resource/${layer()}/feature/${this.#id(k.fid)}${this.#pick(['', '?srs=4326'])}`, 'feature'],
      () => ['GET', `/api/resource/${layer()}/feature/${this.#id(k.fid)}/${this.#pick(['extent', 'geometry_info', 'geometry_info?srs=0'])}`, 'feature'],
      () => ['GET', `/api/resource/${layer()}/${this.#pick(['feature_count', 'feature_extent', 'extent', 'feature_count?fld_i__in=1,x'])}`, 'feature'],
      () => [this.#pick(['GET', 'POST']), `/api/resource/${layer()}/feature/${this.#id(k.fid)}/attachment/`, 'attachment'],
      () => [this.#pick(['GET', 'PUT', 'DELETE']), `/api/resource/${layer()}/feature/${this.#id(k.fid)}/attachment/${this.#id(k.aid)}`, 'attachment'],
      () => ['GET', `/api/resource/${layer()}/feature/${this.#id(k.fid)}/attachment/${this.#id(k.aid)}/${this.#pick(['download', 'image', 'image?size=0x0',
        'image?size=99999x99999', 'image?size=10x10&crop=true'])}`, 'attachment'],
      () => [this.#pick(['POST', 'PUT', 'OPTIONS']), this.#pick(['/api/component/file_upload/', '/api/component/file_upload/upload']), 'upload'],
      () => [this.#pick(['GET', 'HEAD', 'PATCH', 'DELETE']), `/api/component/file_upload/${this.#pick([k.upload, this.#string().replace(/[/?#]/g, ''), '0'.repeat(32), 'upload'])}`, 'upload'],
      () => ['POST', '/api/component/auth/login', 'login'],
      () => [this.#pick(['GET', 'POST']), this.#pick(['/api/component/auth/logout', '/api/component/auth/current_user?require_authenticated=' + this.#pick(['true', 'x']),
        '/api/component/auth/profile']), 'login'],
      () => [this.#pick(['GET', 'PUT']), `/api/component/auth/user/${this.#pick(['1', '2', '5', '7', ...ODD_IDS])}`, 'password'],
      () => ['GET', this.#pick(['/api/component/pyramid/route', '/api/component/pyramid/pkg_version', '/api/component/pyramid/settings?component=' + this.#string(),
        '/api/component/pyramid/healthcheck', '/api/component/pyramid/ping', '/api/component/resource/blueprint', '/api/component/spatial_ref_sys/',
        `/api/component/spatial_ref_sys/${this.#pick(ODD_IDS)}`]), 'resource'],
      () => ['GET', this.#pick(['/api/v1/', `/api/v1/geoservices/?${this.#pick(['limit=1e400', 'offset=-1', 'search=%', 'epsg=1e400', 'type=x', 'ordering=-x', 'intersects_extent=POINT(1'])}`,
        `/api/v1/geoservices/${this.#pick(ODD_IDS)}/`, `/api/v1/geoservice_status/?geoservice=${this.#pick(ODD_IDS)}`, `/api/v1/icons/${this.#pick(ODD_IDS)}/content?width=${this.#pick(ODD_IDS)}`,
        '/api/v1/icons/default/content?width=99999&height=99999']), 'catalogue'],
      () => [this.#pick(['GET', 'POST']), '/api/component/outpost/catalogue/import', 'catalogue'],
      () => [this.#pick(['GET', 'POST', 'DELETE']), this.#pick(['/api/nothing', '/api//resource/0', '/api/resource/0/%00', '/api/' + this.#string().replace(/[?#]/g, '')]), 'resource'],
      // Data out, rendering, versioning and sync (appended: the indexes above stay as they were).
      () => ['GET', `/api/resource/${layer()}/${this.#pick(['export?format=GPKG', 'export?format=CSV&srs=999999', 'export?format=x', 'export?format=GeoJSON&zipped=maybe&fid=',
        'geojson?intersects=POLYGON((0 0', 'csv?fields=%00', `${this.#pick(ODD_IDS)}/${this.#pick(ODD_IDS)}/0.mvt`, 'feature/version/', 'feature/changes/check?epoch=x&initial=1e400',
        'feature/changes/fetch?epoch=1&initial=-1&target=99999999999999999999', 'feature/?version=1e400', 'sync', 'sync/conflict/', 'legend_symbols?width=99999', 'qml'])}`, 'feature'],
      () => ['GET', `/api/component/${this.#pick(['feature_layer/mvt', 'render/tile', 'render/image'])}?${this.#pick([`z=${this.#pick(ODD_IDS)}&x=0&y=0`, 'z=99&x=-1&y=1e400',
        `resource=${layer()},${this.#pick(ODD_IDS)}&z=1&x=0&y=0`, 'extent=1,2,3&size=99999,99999', `resource=${layer()}&extent=0,0,1,1&size=0,0&srs=${this.#pick(ODD_IDS)}`,
        'simplification=99&padding=-1&extent=1e400'])}`, 'resource'],
      () => [this.#pick(['POST', 'PUT', 'DELETE']), `/api/resource/${layer()}/${this.#pick(['sync', `sync/conflict/${this.#pick(ODD_IDS)}`, 'feature/transaction/',
        `feature/transaction/${this.#pick(ODD_IDS)}`])}`, 'feature'],
      () => ['POST', this.#pick(['/api/feature_layer/identify', '/api/component/feature_layer/export']), 'feature'],
      // Patterns, symbols and XML (issue 19): styles saved and changed, then drawn with filters.
      () => this.#chance(0.5) ? ['POST', '/api/resource/', 'style'] : ['PUT', `/api/resource/${this.#id(k.style)}`, 'restyle'],
      () => ['GET', `/api/component/render/tile?z=0&x=0&y=0&resource=${this.#id(k.style)}${this.#chance(0.7)
        ? `&filter[${k.style}]=${encodeURIComponent(this.#renderFilter())}` : ''}`, 'style'],
      () => ['GET', `/api/resource/${layer()}/feature/?${this.#pick(['fld_s__like', 'fld_s__ilike', 'like', 'ilike', 'fld_s__startswith'])}=${
        encodeURIComponent(this.#pick(EVIL_LIKES))}`, 'feature'],
      () => ['GET', `/api/resource/search/?${this.#pick(['display_name__like', 'display_name__ilike', 'keyname__like', 'resmeta__like[a]'])}=${
        encodeURIComponent(this.#pick(EVIL_LIKES))}`, 'resource'],
      // PostGIS connections and layers made in either spelling (the service worker refuses both: a 422).
      () => ['POST', '/api/resource/', this.#pick(['spatialdb_connection', 'spatialdb_layer'])],
      // WMS connections and layers (issue 26 item 2).
      () => ['POST', '/api/resource/', 'wmsclient'],
    ]
    const BASE_ROUTES = routes.length
    // A real PostGIS database (the Node host): the known connection and layer changed, inspected, checked and their features asked.
    const sdb = k.spatialdb
    if (sdb) {
      const target = () => this.#id(this.#pick([sdb.connection, sdb.layer]))
      routes.push(() => ['PUT', `/api/resource/${target()}`, 'spatialdb_change'])
      routes.push(() => ['GET', `/api/resource/${this.#id(sdb.connection)}/inspect/${this.#pick(['', `${sdb.table}/`, `${sdb.table}/?schema=${this.#pick(['public', 'nope', '', '%00'])}`,
        'nope/', `${encodeURIComponent('x"; --')}/`])}`, 'spatialdb_change'])
      routes.push(() => ['POST', this.#pick(['/api/component/postgis/check', '/api/component/spatialdb/check']), 'spatialdb_check'])
      routes.push(() => [this.#pick(['GET', 'POST', 'PATCH', 'DELETE']), `/api/resource/${this.#id(sdb.layer)}/feature/${this.#pick(['', '?limit=2', '?fld_name__eq=x',
        '?order_by=-n', '?fld_n__gt=1.5', '?intersects=POLYGON((0 0,9 0,9 9,0 0))', '?like=%', '?fld_n__in=1,x'])}`, 'spatialdb_feature'])
      routes.push(() => [this.#pick(['GET', 'PUT', 'DELETE']), `/api/resource/${this.#id(sdb.layer)}/feature/${this.#id(sdb.fid)}${this.#pick(['', '/attachment/'])}`,
        'spatialdb_feature'])
      routes.push(() => ['GET', `/api/resource/${this.#id(sdb.layer)}/${this.#pick(['feature_count', 'extent', 'export?format=GPKG', 'geojson', '0/0/0.mvt'])}`, 'resource'])
    }
    const DATABASE_ROUTES = routes.length
    // Hostile remotes (when the runner made connections to them): their tree, and links to their layers.
    if (k.remotes?.length) {
      routes.push(() => ['GET', `/api/resource/${this.#chance(0.9) ? this.#pick(k.remotes!) : this.#pick(ODD_IDS)}/remote/?parent=${this.#id(0)}`, 'remote'])
      routes.push(() => ['POST', '/api/resource/', 'link'])
    }
    let route = this.#pick(routes)
    // Logins cost a PBKDF2 each, and a hostile remote may keep a request until its timeout: a third of their share is enough.
    while ((route === routes[13] || routes.indexOf(route) >= DATABASE_ROUTES) && this.#chance(0.67)) route = this.#pick(routes)
    const database = routes.indexOf(route) >= BASE_ROUTES && routes.indexOf(route) < DATABASE_ROUTES
    const [method, path, kind] = route()
    const opts: RequestOptions = { ...who, headers: { ...this.#headers(), ...who.headers } }
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' || this.#chance(0.05)) Object.assign(opts, this.#body(kind))
    if (method === 'GET' || method === 'HEAD') { delete opts.body; delete opts.raw; delete opts.bytesBase64 }
    if (this.#chance(0.05)) opts.credentials = 'include'
    if (kind === 'link' && this.#chance(0.7)) Object.assign(opts, { body: this.#shaped('link'), raw: undefined, bytesBase64: undefined })
    return { method, path, opts, remote: kind === 'remote' || kind === 'link', database, as }
  }
}
