import { afterAll, describe, expect, it } from 'vitest'
import { gdalThread } from '../../wasm/gdal-thread-node.ts'

// The Node host's GDAL thread ends when idle, so its heap (which only grows) is given back; it
// stays while a job's files are in GDAL's memory, and the next call starts it again.

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))
const IDLE = 400

describe('the GDAL thread of the Node host', () => {
  const gdal = gdalThread(IDLE)
  afterAll(async () => { await gdal.remove('/input/job').catch(() => undefined) })

  it('ends after a quiet spell with no job in it, stays while a job holds files, and starts again on the next call', { timeout: 120_000 }, async () => {
    expect(gdal.running).toBe(false)
    expect(await gdal.readdir('/input')).toEqual([])
    expect(gdal.running).toBe(true)
    await wait(IDLE * 4)
    expect(gdal.running).toBe(false)

    // A job between its calls: its input is in GDAL's memory, so the thread (and the file) stay.
    await gdal.writeFile('/input/job/a.txt', new TextEncoder().encode('kept'))
    await wait(IDLE * 4)
    expect(gdal.running).toBe(true)
    expect(new TextDecoder().decode(await gdal.readFile('/input/job/a.txt'))).toBe('kept')
    await gdal.remove('/input/job')
    await wait(IDLE * 4)
    expect(gdal.running).toBe(false)

    // A new thread answers as the first did.
    expect(await gdal.readdir('/input')).toEqual([])
    expect(gdal.running).toBe(true)
  })
})
