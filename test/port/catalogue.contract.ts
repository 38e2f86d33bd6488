/**
 * The catalogue store in the data port's contract (sw/catalogue/repository.ts), run by
 * test/unit/port.test.ts: its own store, replaced whole, with its own change token.
 */
import { describe, expect, it } from 'vitest'
import type { DataPort } from '../../sw/port/port.ts'
import type { CatalogueData } from '../../sw/catalogue/records.ts'
import type { PortUnderTest } from './contract.ts'

const png = (n: number) => new Uint8Array([137, 80, 78, 71, n])
const DATA: CatalogueData = {
  services: [{ id: 2, name: 'two', type: 'tms' }, { id: 1, name: 'one', type: 'wms' }],
  statuses: [{ id: 5, geoservice: 1, status: 'works' }],
  icons: [{ id: 7, guid: 'g7', name: 'seven', png: png(7) }],
  defaultIcon: png(0),
}
const sorted = (rows: Array<Record<string, unknown>>) => [...rows].sort((a, b) => Number(a.id) - Number(b.id))

export function catalogueContract<P extends DataPort>(sut: PortUnderTest<P>): void {
  describe('catalogue', () => {
    it('is empty until filled; then answers the records as given, the icons by id and the default icon', async () => {
      const p = await sut.fresh()
      const c = await p.catalogue()
      expect(await c.source()).toBeUndefined()
      expect(await c.load()).toEqual({ services: [], statuses: [], icons: [] })
      await c.replace(DATA, 'import')
      expect(await c.source()).toBe('import')
      const got = await c.load()
      expect(sorted(got.services)).toEqual(sorted(DATA.services))
      expect(got.statuses).toEqual(DATA.statuses)
      expect(got.icons).toEqual([{ id: 7, guid: 'g7', name: 'seven' }])
      expect(await c.icon(7)).toEqual(png(7))
      expect(await c.icon(8)).toBeUndefined()
      expect(await c.icon('default')).toEqual(png(0))
    })

    it('replace swaps everything; the default icon stays through an import without one and goes with a default fill', async () => {
      const p = await sut.fresh()
      const c = await p.catalogue()
      await c.replace(DATA, 'import')
      await c.replace({ services: [{ id: 3, name: 'three' }], statuses: [], icons: [] }, 'import')
      expect(await c.load()).toEqual({ services: [{ id: 3, name: 'three' }], statuses: [], icons: [] })
      expect(await c.icon(7)).toBeUndefined()
      expect(await c.icon('default')).toEqual(png(0))
      await c.replace({ services: [], statuses: [], icons: [] }, 'default')
      expect(await c.source()).toBe('default')
      expect(await c.icon('default')).toBeUndefined()
    })

    it("its token is not 'closed' once open, moves with each replace and stays through reads; 'main' does not move", async () => {
      const p = await sut.fresh()
      const c = await p.catalogue()
      const main = p.tokens.current('main')
      const t0 = p.tokens.current('catalogue')
      expect(t0).not.toBe('closed')
      await c.replace(DATA, 'import')
      const t1 = p.tokens.current('catalogue')
      expect(t1).not.toBe(t0)
      await c.load()
      await c.icon(7)
      expect(p.tokens.current('catalogue')).toBe(t1)
      expect(p.tokens.current('main')).toBe(main)
      expect(await p.catalogue()).toBe(c)
    })

    it.runIf(!!sut.failCommits)('a replace that cannot be saved answers 503 or 507 and keeps the previous catalogue', async () => {
      const p = await sut.fresh()
      const c = await p.catalogue()
      await c.replace(DATA, 'import')
      sut.failCommits!(p, true)
      const err = await c.replace({ services: [], statuses: [], icons: [] }, 'default').then(() => undefined, (e: unknown) => e)
      sut.failCommits!(p, false)
      expect([503, 507]).toContain((err as { status?: number }).status)
      expect(sorted((await c.load()).services)).toEqual(sorted(DATA.services))
      expect(await c.source()).toBe('import')
    })

    it.runIf(!!sut.reopen)('is there after a restart', async () => {
      const p = await sut.fresh()
      await (await p.catalogue()).replace(DATA, 'import')
      const again = await sut.reopen!(p)
      const c = await again.catalogue()
      expect(await c.source()).toBe('import')
      expect(await c.icon(7)).toEqual(png(7))
    })
  })
}
