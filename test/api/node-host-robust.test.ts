import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// The real Node host in its own process: a request that ended it would end it here too.
let child: ChildProcess
let port: number
// A built app of one page, so that paths outside /api/ go to the static files.
const staticDir = mkdtempSync(join(tmpdir(), 'outpost-static-'))
writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>app</title>')

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', 'sw/host/node-main.ts', '--port', '0', '--memory', '--static', staticDir],
    { env: { ...process.env, OUTPOST_ADMIN_PASSWORD: 'robust-pw' }, stdio: ['ignore', 'pipe', 'pipe'] })
  port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) resolve(Number(m[1]))
    })
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
}, 60_000)
afterAll(() => {
  child.kill('SIGTERM')
  rmSync(staticDir, { recursive: true, force: true })
})

/** Sends `head` as it is over a raw socket and resolves with the whole answer. */
function raw(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head))
    let text = ''
    socket.on('data', (d) => { text += d.toString('latin1') })
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1])
const bodyOf = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4)

describe('the Node host survives hostile requests', () => {
  it.each(['x:99999', '[', 'a%zz'])('answers Host: %s with a JSON 400 and keeps serving', async (hostHeader) => {
    const answer = await raw(`GET /api/component/pyramid/ping HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`)
    expect(statusOf(answer)).toBe(400)
    expect(answer).toMatch(/\r\ncontent-type: application\/json\r\n/i)
    const body = JSON.parse(bodyOf(answer))
    expect(body).toMatchObject({ status_code: 400, exception: 'nextgisweb.pyramid.exception.PyramidHTTPError' })
    const ping = await fetch(`http://127.0.0.1:${port}/api/component/pyramid/ping`)
    expect(ping.status).toBe(200)
    expect(typeof (await ping.json()).current).toBe('number')
  })

  it('answers a path of broken percent-encoding outside /api/ with a JSON 400', async () => {
    const answer = await raw(`GET /a%zz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)
    expect(statusOf(answer)).toBe(400)
    expect(JSON.parse(bodyOf(answer)).status_code).toBe(400)
    expect(child.exitCode).toBeNull()
  })
})
