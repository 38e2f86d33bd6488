/**
 * @module postgres/external/check
 * The diagnostics of `POST /api/component/postgis/check` (reference ngw-services §4.4): a
 * one-off connection with a 5 s timeout (not a pool's: the parameters may be a draft), then
 * what the original reports: the server's version, TLS, whether `statement_timeout` is
 * honoured, PostGIS, and for a layer its table, id, geometry and field columns.
 */
import pg from 'pg'
import type { CheckGroup, SpatialDbParams } from '../../port/spatialdb.ts'
import { catalogColumns } from './inspect.ts'
import { describeTable, type DescribeInput } from './describe.ts'
import { clientConfig, connectReason, type PoolOptions } from './pools.ts'

const CHECK_CONNECT_MS = 5_000

type Status = CheckGroup['status']
type Message = CheckGroup['messages'][number]

const group = (g: CheckGroup['group'], title: string, messages: Message[]): CheckGroup => ({
  group: g, title, messages,
  status: messages.some((m) => m.status === 'error') ? 'error' : messages.some((m) => m.status === 'warning') ? 'warning' : 'success',
})

const textOf = (err: unknown) => (err as Error)?.message?.split('\n')[0] ?? String(err)

export async function checkDatabase(params: SpatialDbParams, layer: DescribeInput | undefined,
  opts: Pick<PoolOptions, 'statementTimeoutMs' | 'guard'>): Promise<CheckGroup[]> {
  const client = new pg.Client(clientConfig(params, { ...opts, connectTimeoutMs: CHECK_CONNECT_MS }))
  client.on('error', () => undefined)
  const conn: Message[] = []
  try {
    await client.connect()
  } catch (err) {
    conn.push({ status: 'error', text: connectReason(err, params, CHECK_CONNECT_MS) ?? `Cannot connect: ${textOf(err)}` })
    return [group('connection', 'PostgreSQL connection', conn)]
  }
  try {
    conn.push({ status: 'success', text: `Connected to database '${params.database}' on ${params.hostname}:${params.port ?? 5432} as '${params.username}'.` })
    const info = (await client.query<{ version: string; ssl: boolean | null; timeout: string }>(
      `SELECT current_setting('server_version') AS version,
              (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()) AS ssl,
              current_setting('statement_timeout') AS timeout`)).rows[0]!
    conn.push({ status: 'success', text: `PostgreSQL version ${info.version}.` })
    conn.push({ status: info.ssl ? 'success' : 'warning', text: info.ssl ? 'The connection is encrypted (TLS).' : 'The connection is not encrypted.' })
    const expected = `${opts.statementTimeoutMs}ms`
    const honoured = info.timeout === expected || info.timeout === `${opts.statementTimeoutMs / 1000}s`
    conn.push({ status: honoured ? 'success' : 'warning',
      text: honoured ? `statement_timeout is ${info.timeout}.` : `statement_timeout is ${info.timeout}, not ${expected}: long queries are not stopped.` })
    const out = [group('connection', 'PostgreSQL connection', conn)]
    const postgis = (await client.query<{ v: string }>("SELECT extversion AS v FROM pg_extension WHERE extname = 'postgis'")).rows[0]
    out.push(group('connection', 'PostGIS extension', [postgis
      ? { status: 'success', text: `PostGIS version ${postgis.v}.` }
      : { status: 'error', text: 'The PostGIS extension is not installed in this database.' }]))
    if (layer) out.push(...await checkLayer(client, layer))
    return out
  } catch (err) {
    conn.push({ status: 'error', text: textOf(err) })
    return [group('connection', 'PostgreSQL connection', conn)]
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** The layer's groups: its table, then its columns; a failed step says why and stops there. */
async function checkLayer(client: pg.Client, t: DescribeInput): Promise<CheckGroup[]> {
  const found = await catalogColumns(client, t.schema, t.table)
  if (!found) return [group('layer', 'Layer table', [{ status: 'error', text: `Table '${t.schema}.${t.table}' not found.` }])]
  const priv = (await client.query<{ sel: boolean; ins: boolean; upd: boolean; del: boolean }>(
    `SELECT has_table_privilege(c.oid, 'SELECT') AS sel, has_table_privilege(c.oid, 'INSERT') AS ins,
            has_table_privilege(c.oid, 'UPDATE') AS upd, has_table_privilege(c.oid, 'DELETE') AS del
       FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = $2`, [t.schema, t.table])).rows[0]!
  const missing = (['INSERT', 'UPDATE', 'DELETE'] as const).filter((p, i) => ![priv.ins, priv.upd, priv.del][i])
  const out = [group('layer', 'Layer table', [
    { status: 'success', text: `Table '${t.schema}.${t.table}' found.` },
    priv.sel ? { status: 'success', text: 'Reading is allowed.' } : { status: 'error', text: 'Reading is not allowed for this user.' },
    ...(missing.length ? [{ status: 'warning' as Status, text: `Not allowed for this user: ${missing.join(', ')} (features cannot be written).` }] : []),
  ])]
  const names = new Set(found.columns.map((c) => c.name))
  out.push(group('layer', 'ID column', [names.has(t.columnId)
    ? { status: 'success', text: `Column '${t.columnId}' found.` } : { status: 'error', text: `Column '${t.columnId}' not found.` }]))
  out.push(group('layer', 'Geometry column', [names.has(t.columnGeom)
    ? { status: 'success', text: `Column '${t.columnGeom}' found.` } : { status: 'error', text: `Column '${t.columnGeom}' not found.` }]))
  if (out.some((g) => g.status === 'error')) return out
  // The rest is what `fields: "update"` would say.
  try {
    const d = await describeTable(client, t)
    const skipped = found.columns.filter((c) => c.name !== t.columnId && c.name !== t.columnGeom && !d.fields.some((f) => f.column === c.name))
    out.push(group('layer', 'Field columns', [
      { status: 'success', text: `${d.fields.length} columns become fields; geometry ${d.geometryType}, SRID ${d.geometrySrid}.` },
      ...skipped.map((c): Message => ({ status: 'warning', text: `Column '${c.name}' (${c.formatted}) has a type no field has: it is left out.` })),
    ]))
  } catch (err) {
    out.push(group('layer', 'Field columns', [{ status: 'error', text: textOf(err) }]))
  }
  return out
}
