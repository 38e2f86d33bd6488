import { afterAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { basicAuth } from './node-client.ts'

// `npm start` on a busy port (issue 20 item 8): it used to make the data folder and print a new
// administrator password, then die of EADDRINUSE, and the next start said "unchanged". The port
// is bound first now. The command run is `npm start`'s own, after its build step.

const START = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.split('&&').at(-1)!.trim()

// The start banner (how to open the app, the --cors hint) is printed when there is a built app to serve.
const BANNER = existsSync('dist/index.html')

const dirs: string[] = []
const procs: ChildProcess[] = []
afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

/** Runs the start command with `PORT`, a new data folder and no preset password; resolves at exit or once it is listening and its banner (which ends with the --cors hint) is out. */
function start(port: number, data: string): Promise<{ proc: ChildProcess; code: number | null; out: string; err: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), OUTPOST_DATA: data, PATH: `${resolve('node_modules/.bin')}${delimiter}${process.env.PATH}` }
  delete env.OUTPOST_ADMIN_PASSWORD
  const proc = spawn(START, { shell: true, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  procs.push(proc)
  let out = ''
  let err = ''
  return new Promise((done) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 90_000)
    const finish = (code: number | null) => { clearTimeout(timer); done({ proc, code, out, err }) }
    proc.stdout!.on('data', (b: Buffer) => { out += b.toString(); if (/listening on http/.test(out) && (!BANNER || /needs none\)/.test(out))) finish(null) })
    proc.stderr!.on('data', (b: Buffer) => { err += b.toString() })
    proc.once('exit', (code) => finish(code))
  })
}

/** Stops a started process group (the shell, tsx and node under it). */
function stop(proc: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return done()
    proc.once('exit', () => done())
    process.kill(-proc.pid!, 'SIGTERM')
  })
}

describe('npm start on a busy port', () => {
  it('exits non-zero naming the port and how to pick another, creates no data folder and prints no password; then a free port works', { timeout: 180_000 }, async () => {
    const base = await mkdtemp(join(tmpdir(), 'outpost-port-'))
    dirs.push(base)
    const data = join(base, 'data')
    const blocker: Server = createServer()
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r))
    const port = (blocker.address() as { port: number }).port

    const busy = await start(port, data)
    expect(busy.code).toBe(1)
    expect(busy.err).toContain(`Port ${port} on 127.0.0.1 is in use by another program`)
    expect(busy.err).toContain('--port')
    expect(busy.err).toContain('PORT=')
    expect(busy.err).not.toContain('EADDRINUSE')
    expect(busy.out).not.toContain('administrator password')
    expect(existsSync(data)).toBe(false)

    await new Promise<void>((r) => blocker.close(() => r()))
    const free = await start(port, data)
    try {
      expect(free.code).toBe(null)
      expect(free.out).toContain(`listening on http://127.0.0.1:${port}`)
      expect(free.out).toMatch(/administrator password: \S{8,}/)
      expect(free.out).not.toContain('unchanged')
      expect(existsSync(data)).toBe(true)
      // The banner says how an app on another origin reaches this server.
      if (BANNER) expect(free.out).toContain('--cors <the app\'s origin>')
      // The printed password is the one that works (guests read nothing since issue 21).
      const password = /administrator password: (\S+)/.exec(free.out)![1]!
      const auth = basicAuth('administrator', password)
      const res = await fetch(`http://127.0.0.1:${port}/api/resource/0`, { headers: { authorization: auth } })
      expect(res.status).toBe(200)
    } finally {
      await stop(free.proc)
    }
  })
})
