/**
 * The replica's PostgreSQL specifics (sw/postgres/features/replica.ts) that the engine-neutral
 * contract (test/port/replica.contract.ts) cannot state: its tables made for a layer whose
 * tables predate sync and dropped with the layer, and two ports on one database (two
 * processes) reading each other's bookkeeping at once, the pending push above all.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { openPostgresData, type PostgresPort } from '../../sw/postgres/port.ts'
import type { Field, LayerMeta } from '../../sw/feature/types.ts'
import type { LinkState } from '../../sw/sync/types.ts'
import { cluster } from '../pg/shared.ts'

const ID = 31
const field = (id: number, keyname: string, datatype: Field['datatype']): Field => ({ id, keyname, display_name: keyname, datatype,
  typemod: null, label_field: false, grid_visibility: true, text_search: true, required: false, lookup_table: null })
const meta = (): LayerMeta => ({ resourceId: ID, srs: 3857, geometryType: 'POINT', fields: [field(1, 'name', 'STRING')],
  versioning: { epoch: 1, userId: null } })
const LINK = { connection: 1, resource: 2 }
const SYNC_TABLES = ['sync_meta', 'sync_fid', 'sync_aid', 'sync_conflict', 'sync_problem'].map((n) => `layer_${ID}_${n}`)

const opened: PostgresPort[] = []
afterAll(async () => { for (const d of opened) await d.close() })
const port = async (url: string) => {
  const d = await openPostgresData(url, { maxConnections: 2 })
  opened.push(d)
  return d
}
const existing = async (d: PostgresPort) =>
  (await d.pool.query(`SELECT n FROM unnest($1::text[]) AS n WHERE to_regclass(n) IS NOT NULL`, [SYNC_TABLES])).rows.map((r) => r.n)

describe('the replica on PostgreSQL', () => {
  it('a layer whose tables predate sync gets its bookkeeping tables on the next open; dropping the layer drops them', async () => {
    const url = await (await cluster()).database('replica1')
    const first = await port(url)
    await first.features.open(meta(), () => new Date())
    expect(await existing(first)).toEqual(SYNC_TABLES)
    await first.pool.query(`DROP TABLE ${SYNC_TABLES.join(', ')}`)
    const later = await port(url)
    const r = await later.features.replica(meta(), LINK, () => new Date())
    expect(await r.read((_tx, b) => b.mappings())).toEqual([])
    expect(await existing(later)).toEqual(SYNC_TABLES)
    await later.features.drop(ID)
    expect(await existing(later)).toEqual([])
  })

  it("two processes on one database: each reads the other's pending push and mappings on its next read", async () => {
    const url = await (await cluster()).database('replica2')
    const [a, b] = [await port(url), await port(url)]
    const ra = await a.features.replica(meta(), LINK, () => new Date())
    const rb = await b.features.replica(meta(), LINK, () => new Date())
    const state: LinkState = { fieldMap: { 1: 7 }, remoteVersioned: true, remoteEpoch: 1, remoteVersion: 4, pull: null,
      push: { tid: 42, ops: [{ seqnum: 1, payload: '{}', kind: 'create', fid: 1, vid: 2 }] }, lastSync: null }
    const fid = await ra.write(async (tx, x) => {
      const f = await tx.create({ geom: null, fields: [], values: [] })
      await x.setState(state)
      return f
    })
    expect(await rb.read(async (_tx, x) => [(await x.state())?.push, (await x.localChanges()).map((c) => [c.fid, c.kind])]))
      .toEqual([state.push, [[fid, 'create']]])
    await rb.write(async (_tx, x) => { await x.map(fid, 900, 5); await x.setState({ ...state, push: null }) })
    expect(await ra.read(async (_tx, x) => [(await x.state())?.push, await x.localChanges(), (await x.localOf(900))?.fid]))
      .toEqual([null, [], fid])
  })
})
