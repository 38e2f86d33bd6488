import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { NOTICE_MS, useNotices } from '../../src/composables/useNotices.ts'

// Notices close by themselves; errors stay longer; a held notice stays until released.

describe('useNotices', () => {
  const n = useNotices()
  beforeEach(() => {
    vi.useFakeTimers()
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
  })
  afterEach(() => {
    for (const x of n.notices.value) n.dismiss(x.id)
    vi.useRealTimers()
    vi.restoreAllMocks()
  })

  it('closes a message after a few seconds and an error after longer', () => {
    n.inform('Saved')
    n.reportError(new Error('Boom'))
    expect(n.notices.value.map((x) => x.kind)).toEqual(['info', 'error'])
    expect(NOTICE_MS.error).toBeGreaterThan(NOTICE_MS.info)
    vi.advanceTimersByTime(NOTICE_MS.info)
    expect(n.notices.value.map((x) => x.title)).toEqual(['Unexpected error'])
    vi.advanceTimersByTime(NOTICE_MS.error - NOTICE_MS.info)
    expect(n.notices.value).toEqual([])
  })

  it('keeps a held notice and closes it a full time after it is released', () => {
    n.inform('Read me')
    const id = n.notices.value[0]!.id
    n.hold(id)
    vi.advanceTimersByTime(NOTICE_MS.info * 3)
    expect(n.notices.value).toHaveLength(1)
    n.release(id)
    vi.advanceTimersByTime(NOTICE_MS.info - 1)
    expect(n.notices.value).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(n.notices.value).toEqual([])
  })

  it('shows at most four, dropping the oldest', () => {
    for (let i = 1; i <= 6; i++) n.inform(`N${i}`)
    expect(n.notices.value.map((x) => x.title)).toEqual(['N3', 'N4', 'N5', 'N6'])
  })
})
