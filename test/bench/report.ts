/**
 * Shared by the benchmarks: timing helpers and the writer of one section of
 * docs/benchmarks.md (each benchmark owns the section under its own heading).
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { execSync } from 'node:child_process'

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** Runs `fn` `runs` times (after `warmup` runs) and returns the durations in ms. */
export async function timeRuns(runs: number, fn: () => Promise<unknown> | unknown, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn()
  const out: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn()
    out.push(performance.now() - t0)
  }
  return out
}

export function machine(): string {
  let chromium = ''
  try { chromium = execSync('chromium --version 2>/dev/null', { encoding: 'utf8' }).trim().split('\n').pop() ?? '' } catch { /* optional */ }
  return `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}${chromium ? `, ${chromium}` : ''}`
}

/** Replaces the section `## <title>` of docs/benchmarks.md (or appends it). */
export function writeSection(title: string, body: string): void {
  const path = 'docs/benchmarks.md'
  const head = '# Benchmarks\n\nEach section is rewritten by its benchmark (`npm run bench`). Times are medians; ratios compare against the named reference tool measured in the same run.\n'
  let doc = existsSync(path) ? readFileSync(path, 'utf8') : head
  const section = `## ${title}\n\n${body.trim()}\n`
  const re = new RegExp(`## ${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n[\\s\\S]*?(?=\\n## |$)`)
  doc = re.test(doc) ? doc.replace(re, section) : `${doc.trimEnd()}\n\n${section}`
  writeFileSync(path, doc.trimEnd() + '\n')
}
