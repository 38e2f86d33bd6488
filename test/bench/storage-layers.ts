/**
 * Shared by the storage benchmarks: point layers filled through the API in batches, and the
 * operations measured on them, against either host (`storage-hosts.ts`).
 */
import { median } from './report.ts'

export const BATCH = 10_000
const FIELDS = [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' },
  { keyname: 'v', datatype: 'REAL' }, { keyname: 'day', datatype: 'DATE' }]

/**
 * The PATCH body of points `from`…`from + count` of an `n`-point layer: spread pseudo-randomly
 * over a square of √n × 100 m, so any layer has about 100 points per km² — each batch over the
 * whole square, or with `strips` each batch of 10,000 in a strip of its own (a region at a
 * time, as imports usually come). Self-contained: it also runs in the page (as source text).
 */
export function pointsBody(from: number, count: number, n: number, strips = false): string {
  const side = Math.sqrt(n) * 100
  const batches = Math.ceil(n / 10_000)
  const rand = (i: number, k: number) => {
    let x = (Math.imul(i, 2654435761) ^ Math.imul(k + 1, 40503)) >>> 0
    x ^= x >>> 15; x = Math.imul(x, 2246822519) >>> 0; x ^= x >>> 13; x = Math.imul(x, 3266489917) >>> 0; x ^= x >>> 16
    return (x >>> 0) / 4294967296
  }
  const parts: string[] = []
  for (let i = from; i < from + count; i++) {
    const x = (4_000_000 + rand(i, 0) * side).toFixed(2)
    const y = (7_500_000 + (strips ? (Math.floor(i / 10_000) + rand(i, 1)) / batches : rand(i, 1)) * side).toFixed(2)
    const day = `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`
    parts.push(`{"geom":"POINT(${x} ${y})","fields":{"name":"feature ${i}","n":${i},"v":${i / 7},"day":"${day}"}}`)
  }
  return `[${parts.join(',')}]`
}

/** A box of 1 km² inside the layer's square (about 100 points), the `k`-th of a fixed walk. */
export function smallBox(n: number, k: number): string {
  const side = Math.sqrt(n) * 100
  const x = 4_000_000 + ((k * 0.618034) % 1) * (side - 1000)
  const y = 7_500_000 + ((k * 0.414214) % 1) * (side - 1000)
  return `POLYGON((${x} ${y}, ${x + 1000} ${y}, ${x + 1000} ${y + 1000}, ${x} ${y + 1000}, ${x} ${y}))`
}

export interface Answer { ms: number; status: number; body: unknown }

export interface Host {
  readonly label: string
  /** One request, timed from send to the whole answer read. */
  request(method: string, path: string, body?: string): Promise<Answer>
  /** PATCHes points `from`…`from + count` of an `n`-point layer (the body made where it is sent). */
  patch(layer: number, from: number, count: number, n: number, strips?: boolean): Promise<Answer>
  /** Bytes the host has written so far, where it can tell (Node: the process's `wchar`). */
  written?(): number
}

async function ok(host: Host, method: string, path: string, body?: string): Promise<Answer> {
  const a = await host.request(method, path, body)
  if (a.status >= 300) throw new Error(`${host.label}: ${method} ${path} → ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`)
  return a
}

export interface Layer {
  id: number
  n: number
  firstFid: number
  batches: number[]
  ingestMs: number
  /** Bytes written per batch over the last ten batches, where the host can tell. */
  batchBytes?: number
}

/** Creates an `n`-point layer and fills it through batch PATCHes of 10,000 (`strips`: see `pointsBody`). */
export async function fillLayer(host: Host, n: number, log = true, strips = false): Promise<Layer> {
  const id = ((await ok(host, 'POST', '/api/resource/', JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 },
    display_name: `storage ${n} ${Date.now()}` }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: FIELDS } }))).body as { id: number }).id
  const batches: number[] = []
  const lastTen = Math.max(0, Math.ceil(n / BATCH) - 10) * BATCH
  let writtenBefore = 0
  for (let from = 0; from < n; from += BATCH) {
    if (from === lastTen) writtenBefore = host.written?.() ?? 0
    const a = await host.patch(id, from, Math.min(BATCH, n - from), n, strips)
    if (a.status !== 200) throw new Error(`${host.label}: batch at ${from} → ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`)
    batches.push(a.ms)
    if (log && (batches.length % 10 === 0 || from + BATCH >= n)) {
      console.log(`${host.label}: ${Math.min(n, from + BATCH).toLocaleString('en')} of ${n.toLocaleString('en')} points, last batch ${a.ms.toFixed(0)} ms`)
    }
  }
  const batchBytes = host.written ? (host.written() - writtenBefore) / Math.min(10, batches.length) : undefined
  const first = ((await ok(host, 'GET', `/api/resource/${id}/feature/?limit=1&fields=&geom=no`)).body as { id: number }[])[0]!.id
  return { id, n, firstFid: first, batches, ingestMs: batches.reduce((a, b) => a + b, 0), batchBytes }
}

/** Median ms of `runs` single-feature PUTs (geometry and two fields), after one warm-up. */
export async function editMedian(host: Host, layer: Layer, runs = 15): Promise<number> {
  const ms: number[] = []
  for (let i = 0; i <= runs; i++) {
    // The lower half of the layer: the crash test edits the upper one.
    const fid = layer.firstFid + ((i * 7919 + 13) % Math.floor(layer.n / 2))
    const a = await ok(host, 'PUT', `/api/resource/${layer.id}/feature/${fid}`,
      JSON.stringify({ geom: `POINT(${4e6 + i} ${7.5e6 + i})`, fields: { name: `edited ${i}`, n: -i } }))
    if (i) ms.push(a.ms)
  }
  return median(ms)
}

/** Median ms of `runs` listings with `intersects` on a small box (after 3 warm-ups); checks they found points. */
export async function intersectsMedian(host: Host, layer: Layer, runs = 15): Promise<{ ms: number; found: number }> {
  const ms: number[] = []
  let found = 0
  for (let i = 0; i < runs + 3; i++) {
    const a = await ok(host, 'GET', `/api/resource/${layer.id}/feature/?intersects=${encodeURIComponent(smallBox(layer.n, i + 1))}`)
    found += (a.body as unknown[]).length
    if (i >= 3) ms.push(a.ms)
  }
  if (!found) throw new Error(`${host.label}: intersects found nothing`)
  return { ms: median(ms), found: Math.round(found / (runs + 3)) }
}

/** The first read of a feature of `layer` (after a restart). */
export async function firstRead(host: Host, layer: Layer): Promise<number> {
  return (await ok(host, 'GET', `/api/resource/${layer.id}/feature/${layer.firstFid + Math.floor(layer.n / 2)}`)).ms
}

/**
 * A crash under load: 6 clients edit features of `layer` (each a feature of its own) until
 * `after` edits are acknowledged, then `crash()` kills the host with edits in flight; once it
 * is back (`restart()`), every edited feature is read: each acknowledged edit must be there,
 * each other one whole or not done. Returns the counts (throws on a lost or half-done edit).
 */
export async function crashDuringEdits(host: Host, layer: Layer, after: number, crash: () => Promise<void>,
  restart: () => Promise<void>): Promise<{ sent: number; acked: number; present: number }> {
  const sent: { fid: number; name: string; acked: boolean }[] = []
  let acked = 0
  let crashed: Promise<void> | undefined
  const lane = async (l: number) => {
    for (let i = 0; !crashed; i++) {
      const fid = layer.firstFid + Math.floor(layer.n / 2) + l * Math.floor(layer.n / 12) + i
      const s = { fid, name: `crash l${l} n${i}`, acked: false }
      sent.push(s)
      try {
        const a = await host.request('PUT', `/api/resource/${layer.id}/feature/${fid}`,
          JSON.stringify({ geom: `POINT(${4e6 - fid} ${7.5e6})`, fields: { name: s.name, n: -fid } }))
        if (a.status !== 200) throw new Error(`edit → ${a.status}`)
        s.acked = true
        if (++acked >= after) crashed ??= crash()
      } catch (err) {
        if (!crashed) throw err
        return
      }
    }
  }
  await Promise.all(Array.from({ length: 6 }, (_, l) => lane(l)))
  await crashed
  await restart()
  let present = 0
  for (const s of sent) {
    const got = (await ok(host, 'GET', `/api/resource/${layer.id}/feature/${s.fid}?geom=no`)).body as { fields: { name: string; n: number } }
    const i = s.fid - layer.firstFid
    if (got.fields.name === s.name && got.fields.n === -s.fid) present++
    else if (s.acked) throw new Error(`${host.label}: acknowledged edit ${s.name} of feature ${s.fid} was lost`)
    else if (got.fields.name !== `feature ${i}` || got.fields.n !== i) throw new Error(`${host.label}: feature ${s.fid} is half-edited: ${JSON.stringify(got.fields)}`)
  }
  return { sent: sent.length, acked, present }
}
