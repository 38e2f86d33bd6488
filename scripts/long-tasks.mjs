#!/usr/bin/env node
/**
 * Takes the long tasks of a Chromium trace apart (the pan benchmark's BENCH_PAN_TRACE): for each
 * task over 50 ms on the page's main thread, the trace events inside it by total time and the
 * JavaScript functions sampled in it by self time. Usage: node scripts/long-tasks.mjs trace.json [min ms]
 */
import { readFileSync } from 'node:fs'

const [file, minArg] = process.argv.slice(2)
if (!file) { console.error('usage: node scripts/long-tasks.mjs trace.json [min ms]'); process.exit(2) }
const MIN = Number(minArg ?? 50) * 1000
const raw = JSON.parse(readFileSync(file, 'utf8'))
const events = Array.isArray(raw) ? raw : raw.traceEvents
const names = new Map()
for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name)
const key = (e) => `${e.pid}:${e.tid}`
// The page's main thread: the CrRendererMain with the most long tasks.
const tasks = events.filter((e) => e.ph === 'X' && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && e.dur >= MIN &&
  names.get(key(e)) === 'CrRendererMain')
// JS samples per thread, as [timestamp, leaf frame, stack].
const samples = new Map()
const profiles = new Map()
for (const e of events) {
  if (e.name === 'Profile') profiles.set(`${e.pid}:${e.id}`, { t: e.args.data.startTime, nodes: new Map(), tid: e.tid })
}
for (const e of events) {
  if (e.name !== 'ProfileChunk') continue
  const p = profiles.get(`${e.pid}:${e.id}`)
  if (!p) continue
  const d = e.args.data
  for (const n of d.cpuProfile?.nodes ?? []) p.nodes.set(n.id, n)
  const ids = d.cpuProfile?.samples ?? [], deltas = d.timeDeltas ?? []
  const k = `${e.pid}:${p.tid}`
  if (!samples.has(k)) samples.set(k, [])
  for (let i = 0; i < ids.length; i++) { p.t += deltas[i] ?? 0; samples.get(k).push([p.t, ids[i], p]) }
}
const frame = (n) => n ? `${n.callFrame.functionName || '(anon)'} ${(n.callFrame.url ?? '').split('/').pop()}:${n.callFrame.lineNumber}` : '?'
for (const t of tasks) {
  console.log(`\n== task ${(t.dur / 1000).toFixed(1)} ms at ${(t.ts / 1000).toFixed(0)} (${names.get(key(t))})`)
  const inside = events.filter((e) => e.ph === 'X' && key(e) === key(t) && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + t.dur && e !== t)
  const byName = new Map()
  for (const e of inside) byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur)
  console.log('  events:', [...byName].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([n, d]) => `${n} ${(d / 1000).toFixed(1)}`).join(', '))
  const fc = inside.filter((e) => e.name === 'FunctionCall' || e.name === 'EventDispatch' || e.name === 'FireAnimationFrame' || e.name === 'TimerFire')
  for (const e of fc.slice(0, 8)) console.log(`   ${e.name} ${(e.dur / 1000).toFixed(1)} ms ${JSON.stringify(e.args?.data ?? {}).slice(0, 160)}`)
  const s = (samples.get(key(t)) ?? []).filter(([ts]) => ts >= t.ts && ts <= t.ts + t.dur)
  const self = new Map(), incl = new Map()
  for (const [, id, p] of s) {
    const leaf = p.nodes.get(id)
    self.set(frame(leaf), (self.get(frame(leaf)) ?? 0) + 1)
    const seen = new Set()
    for (let n = leaf; n; n = p.nodes.get(n.parent)) { const f = frame(n); if (!seen.has(f)) { seen.add(f); incl.set(f, (incl.get(f) ?? 0) + 1) } }
  }
  console.log(`  samples ${s.length}; self:`, [...self].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([n, c]) => `${n} ${c}`).join(' | '))
  console.log('  inclusive:', [...incl].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([n, c]) => `${n} ${c}`).join(' | '))
}
console.log(`\n${tasks.length} tasks of ${MIN / 1000} ms or more on CrRendererMain`)
