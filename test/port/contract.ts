/**
 * The data port's contract (sw/port/port.ts; issue 22, docs/architecture.md "Data port"), run
 * by test/unit/port.test.ts against every implementation and store: what any engine must do
 * for the components above it. Engine-neutral: it sees data only through the port (the
 * request log is the main data it reads back), except what an implementation shows through
 * the optional hooks of `PortUnderTest`.
 *
 * Every write case runs twice: on the port as it is, and with `fn` replayed (run once in a
 * unit of work that is then abandoned, then again), since PostgreSQL retries a unit of work
 * after a serialization failure. A case passes both ways only if `fn` does nothing outside tx.
 */
import { describe, expect, it } from 'vitest'
import type { DataPort, MainWrite } from '../../sw/port/port.ts'
import type { JournalEntry } from '../../sw/resource/repository.ts'
import { ApiError, validationError } from '../../sw/core/error.ts'
import { blobContract, pattern } from '../unit/store-contract.ts'
import { authCases } from './auth-contract.ts'
import { uploadsContract } from './uploads.contract.ts'
import { filesContract } from './files.contract.ts'
import { catalogueContract } from './catalogue.contract.ts'
import { resourcesContract } from './resources.contract.ts'
import { aclContract } from './acl.contract.ts'
import { fieldsContract } from './fields.contract.ts'

export interface PortUnderTest<P extends DataPort = DataPort> {
  /** A new port over empty storage. */
  fresh(): Promise<P>
  /** Another port over the same data (a restart), when the storage persists. `p` may be closed first. */
  reopen?(p: P): Promise<P>
  /** While `on`, saving a commit fails (a full disk, a lost connection). */
  failCommits?(p: P, on: boolean): void
  /** The journal as stored, oldest first (the port has no journal read). */
  journal?(p: P): Promise<JournalEntry[]>
  /** Makes a vector layer's resource row and returns its id (until the resources' repository, WP-A, can). */
  layer?(p: P): Promise<number>
}

/** Abandons a replayed unit of work's first run. */
class Replay extends Error {}

/** `p` with each unit of work's `fn` run twice: once in a unit of work that is rolled back, then for real. */
function replaying<P extends DataPort>(p: P): P {
  return new Proxy(p, {
    get(target, key, receiver) {
      if (key !== 'unitOfWork') return Reflect.get(target, key, receiver)
      return async <T>(fn: (tx: MainWrite) => Promise<T>): Promise<T> => {
        await target.unitOfWork(async (tx) => { await fn(tx); throw new Replay() }).catch((err: unknown) => {
          if (!(err instanceof Replay)) throw err
        })
        return target.unitOfWork(fn)
      }
    },
  })
}

const ENTRY: JournalEntry = { tstamp: '2026-01-02T03:04:05', userId: 4, resourceId: 7, action: 'resource.create', payload: { n: 1 } }

export function portContract<P extends DataPort>(name: string, sut: PortUnderTest<P>): void {
  describe(`port contract: ${name}`, () => {
    for (const mode of ['as is', 'fn replayed'] as const) {
      const fresh = async () => { const p = await sut.fresh(); return { p, port: mode === 'as is' ? p : replaying(p) } }

      describe(`unit of work (${mode})`, () => {
        it('commits all of its writes together, and a read then sees them', async () => {
          const { port } = await fresh()
          const out = await port.unitOfWork(async (tx) => {
            await tx.requests.record('a', 'fa', '{"id":1}', 1000)
            // A unit of work sees its own writes.
            expect(await tx.requests.past('a')).toEqual({ fingerprint: 'fa', body: '{"id":1}' })
            await tx.requests.record('b', 'fb', '{"id":2}', 1000)
            return 'done'
          })
          expect(out).toBe('done')
          expect(await port.read(async (tx) => [await tx.requests.past('a'), await tx.requests.past('b')]))
            .toEqual([{ fingerprint: 'fa', body: '{"id":1}' }, { fingerprint: 'fb', body: '{"id":2}' }])
        })

        it('rolls all of them back when fn rejects, after any number of awaits, and passes its error on unchanged', async () => {
          const { port } = await fresh()
          await port.unitOfWork((tx) => tx.requests.record('kept', 'f', '1', 1000))
          const refusal = validationError('halfway')
          const err = await port.unitOfWork(async (tx) => {
            await tx.requests.record('lost-1', 'f', '1', 1000)
            await new Promise((r) => setTimeout(r, 1))
            await tx.requests.record('lost-2', 'f', '1', 1000)
            throw refusal
          }).then(() => undefined, (e: unknown) => e)
          expect(err).toBe(refusal)
          expect(await port.read(async (tx) => [await tx.requests.past('kept'), await tx.requests.past('lost-1'), await tx.requests.past('lost-2')]))
            .toEqual([{ fingerprint: 'f', body: '1' }, undefined, undefined])
        })

        it('runs units of work one after another in the order they were asked for (FIFO), each seeing the ones before', async () => {
          const { port } = await fresh()
          const keys = ['k0', 'k1', 'k2', 'k3', 'k4']
          const seen = await Promise.all(keys.map((key) => port.unitOfWork(async (tx) => {
            const before: string[] = []
            for (const k of keys) if (await tx.requests.past(k)) before.push(k)
            await new Promise((r) => setTimeout(r, 1))
            await tx.requests.record(key, 'f', '1', 1000)
            return before
          })))
          expect(seen).toEqual(keys.map((_, i) => keys.slice(0, i)))
          // A read asked for after them sees every one.
          expect(await port.read(async (tx) => (await Promise.all(keys.map((k) => tx.requests.past(k)))).filter(Boolean).length)).toBe(5)
        })

        it('a read asked for while a unit of work runs sees it whole or not at all', async () => {
          const { port } = await fresh()
          const write = port.unitOfWork(async (tx) => {
            await tx.requests.record('x', 'f', '1', 1000)
            await new Promise((r) => setTimeout(r, 5))
            await tx.requests.record('y', 'f', '1', 1000)
          })
          const seen = await port.read(async (tx) => [!!await tx.requests.past('x'), !!await tx.requests.past('y')])
          await write
          expect([[true, true], [false, false]]).toContainEqual(seen)
        })

        it.runIf(!!sut.failCommits)('a commit that cannot be saved answers 503 or 507, leaves nothing visible, and the next one works', async () => {
          const { p, port } = await fresh()
          await port.unitOfWork((tx) => tx.requests.record('before', 'f', '1', 1000))
          sut.failCommits!(p, true)
          const err = await port.unitOfWork((tx) => tx.requests.record('lost', 'f', '1', 1000)).then(() => undefined, (e: unknown) => e)
          sut.failCommits!(p, false)
          expect(err).toBeInstanceOf(ApiError)
          expect([503, 507]).toContain((err as ApiError).status)
          expect(await port.read(async (tx) => [!!await tx.requests.past('before'), !!await tx.requests.past('lost')])).toEqual([true, false])
          await port.unitOfWork((tx) => tx.requests.record('after', 'f', '1', 1000))
          expect(await port.read(async (tx) => !!await tx.requests.past('after'))).toBe(true)
        })

        it.runIf(!!sut.reopen)('what a unit of work acknowledged is there after a restart; what it rolled back is not', async () => {
          const { p, port } = await fresh()
          await Promise.all(['a', 'b', 'c'].map((k) => port.unitOfWork((tx) => tx.requests.record(k, `f${k}`, k, 1000))))
          await port.unitOfWork(async (tx) => { await tx.requests.record('d', 'f', 'd', 1000); throw new Error('no') }).catch(() => undefined)
          const again = await sut.reopen!(p)
          expect(await again.read(async (tx) => Promise.all(['a', 'b', 'c', 'd'].map((k) => tx.requests.past(k)))))
            .toEqual([{ fingerprint: 'fa', body: 'a' }, { fingerprint: 'fb', body: 'b' }, { fingerprint: 'fc', body: 'c' }, undefined])
        })
      })

      describe(`requests and journal (${mode})`, () => {
        it('the request log answers what was recorded, nothing for other keys, and forgets answers older than a day', async () => {
          const { port } = await fresh()
          expect(await port.read((tx) => tx.requests.past('never'))).toBeUndefined()
          await port.unitOfWork((tx) => tx.requests.record('old', 'f1', '{"a":1}', 1000))
          await port.unitOfWork((tx) => tx.requests.record('new', 'f2', '{"b":2}', 1000 + 24 * 3600 + 1))
          expect(await port.read(async (tx) => [await tx.requests.past('old'), await tx.requests.past('new')]))
            .toEqual([undefined, { fingerprint: 'f2', body: '{"b":2}' }])
        })

        it.runIf(!!sut.journal)('the journal keeps the entries of committed units of work, in order, and none of rolled-back ones', async () => {
          const { p, port } = await fresh()
          await port.unitOfWork(async (tx) => { await tx.journal.add(ENTRY); await tx.journal.add({ ...ENTRY, action: 'resource.update', payload: null }) })
          await port.unitOfWork(async (tx) => { await tx.journal.add({ ...ENTRY, action: 'lost' }); throw new Error('no') }).catch(() => undefined)
          expect(await sut.journal!(p)).toEqual([ENTRY, { ...ENTRY, action: 'resource.update', payload: null }])
        })
      })

      authCases(mode, fresh)
      uploadsContract(fresh, mode)
      filesContract(fresh, mode)
      resourcesContract(fresh, mode)
      aclContract(fresh, mode)
      if (sut.layer) fieldsContract(fresh, mode, sut.layer)
    }

    catalogueContract(sut)

    describe('tokens', () => {
      it("'main' is a string that moves after a committed unit of work and stays through reads", async () => {
        const p = await sut.fresh()
        const t0 = p.tokens.current('main')
        expect(typeof t0).toBe('string')
        await p.read((tx) => tx.requests.past('x'))
        expect(p.tokens.current('main')).toBe(t0)
        await p.unitOfWork((tx) => tx.requests.record('x', 'f', '1', 1000))
        const t1 = p.tokens.current('main')
        expect(t1).not.toBe(t0)
        await p.unitOfWork((tx) => tx.requests.record('y', 'f', '1', 1000))
        expect(p.tokens.current('main')).not.toBe(t1)
        expect(p.tokens.current('main')).toBe(p.tokens.current('main'))
      })

      it.runIf(!!sut.reopen)("a restart moves 'main': nothing cached before it is taken for current", async () => {
        const p = await sut.fresh()
        await p.unitOfWork((tx) => tx.requests.record('x', 'f', '1', 1000))
        const before = p.tokens.current('main')
        const again = await sut.reopen!(p)
        expect(again.tokens.current('main')).not.toBe(before)
      })
    })

    describe('blobs', () => {
      blobContract(async () => (await sut.fresh()).blobs)

      it.runIf(!!sut.reopen)('blobs are there after a restart', async () => {
        const p = await sut.fresh()
        await p.blobs.putBlob('kept', pattern(5000, 5))
        const again = await sut.reopen!(p)
        expect(await again.blobs.getBlob('kept')).toEqual(pattern(5000, 5))
      })
    })

    it('ping answers while the port is open', async () => {
      const p = await sut.fresh()
      await expect(p.ping()).resolves.toBeUndefined()
    })
  })
}
