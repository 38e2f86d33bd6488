/**
 * The catalogue on PostgreSQL with several processes on one database (two ports, two pools):
 * what the port contract (pg-port.test.ts) cannot see with one.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { openPostgresData, type PostgresPort } from '../../sw/postgres/port.ts'
import { Catalogue } from '../../sw/catalogue/service.ts'
import type { CatalogueData } from '../../sw/catalogue/records.ts'
import { nodeEpsg } from '../../sw/host/node-epsg.ts'
import { cluster } from '../pg/shared.ts'

const png = (n: number) => new Uint8Array([137, 80, 78, 71, n])
/** A catalogue of `n` services (ids 1…n, one status and one icon each), tagged by `name`. */
const data = (name: string, n: number): CatalogueData => ({
  services: Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `${name} ${i + 1}`, type: 'tms' })),
  statuses: Array.from({ length: n }, (_, i) => ({ id: i + 1, geoservice: i + 1, status: 'works' })),
  icons: Array.from({ length: n }, (_, i) => ({ id: i + 1, guid: `g${i + 1}`, name: `${name} icon`, png: png(i) })),
})

const open: PostgresPort[] = []
async function twoProcesses(): Promise<[PostgresPort, PostgresPort]> {
  const url = await (await cluster()).database('catalogue')
  const a = await openPostgresData(url)
  const b = await openPostgresData(url)
  open.push(a, b)
  return [a, b]
}
afterEach(async () => { await Promise.all(open.splice(0).map((p) => p.close())) })

describe('the catalogue on PostgreSQL, two processes on one database', () => {
  it("a replace by one moves the other's token on its next refresh (not before), and its index is re-read then", async () => {
    const [a, b] = await twoProcesses()
    await Catalogue.open({ epsg: nodeEpsg }, a)
    const cb = await Catalogue.open({ epsg: nodeEpsg }, b)
    const before = cb.index
    const token = b.tokens.current('catalogue')
    await (await a.catalogue()).replace(data('a', 3), 'import')
    expect(b.tokens.current('catalogue')).toBe(token)
    expect((await cb.current()).index).toBe(before)
    await b.tokens.refresh()
    expect(b.tokens.current('catalogue')).not.toBe(token)
    expect((await cb.current()).index).not.toBe(before)
    expect((await (await b.catalogue()).load()).services.map((s) => s.name)).toEqual(['a 1', 'a 2', 'a 3'])
  })

  it('two imports at once, one from each process, both succeed and leave one of them whole', async () => {
    const [a, b] = await twoProcesses()
    const [ca, cb] = [await a.catalogue(), await b.catalogue()]
    await ca.replace(data('first', 50), 'import')
    for (let round = 0; round < 3; round++) {
      await Promise.all([ca.replace(data('a', 200), 'import'), cb.replace(data('b', 150), 'import')])
      const got = await ca.load()
      const tag = String(got.services[0]!.name).split(' ')[0]!
      expect(got.services).toEqual(data(tag, tag === 'a' ? 200 : 150).services)
      expect(got.icons.every((i) => i.name === `${tag} icon`)).toBe(true)
      expect(got.statuses).toHaveLength(got.services.length)
    }
  })
})
