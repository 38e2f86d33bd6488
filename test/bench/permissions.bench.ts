/**
 * Permissions (issue 21): the cost of the checkpoint's check per request with 1,000 rules on the
 * ancestor chain (target < 0.1 ms on the Node host), and listing a group of 10,000 children as a
 * user whose rules hide half of them (target < 50 ms). In process on the Node platform (memory
 * store), so the numbers are the evaluator's and the listing's, not HTTP's. No reference tool:
 * the original evaluates in Python per request; its numbers are not measured here.
 *
 * Run: `npm run bench -- permissions`.
 */
import { createApp } from '../../sw/app.ts'
import { nodePlatform } from '../../sw/host/node.ts'
import { getUser } from '../../sw/auth/service.ts'
import { writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { machine, median, timeRuns, writeSection } from './report.ts'
import { sqliteMain } from '../port/sqlite-main.ts'

/** The machine is shared: its load says how far the numbers can be trusted. */
const loadAtStart = loadavg()
const DEPTH = 10
const RULES_PER_LEVEL = 100
const CHILDREN = 10_000
const PASSWORD = 'bench-password'

const app = createApp(nodePlatform({ admin: { password: PASSWORD, mustChange: false }, log: () => {} }))
const services = await app.services()
const { data, acl } = services
const main = sqliteMain(services)

// A user in one group, and 1,000 rules on the chain: most name other principals (as on a shared
// server), a few this user's group; the last level allows the user data.read.
const { userId, groupId } = await main.write((db) => {
  db.exec(`INSERT INTO principal (cls, keyname, display_name, password_hash) VALUES ('U', 'reader', 'Reader', NULL)`)
  const userId = Number(db.selectValue('SELECT last_insert_rowid()'))
  db.exec(`INSERT INTO principal (cls, keyname, display_name) VALUES ('G', 'readers', 'Readers')`)
  const groupId = Number(db.selectValue('SELECT last_insert_rowid()'))
  db.exec({ sql: 'INSERT INTO principal_member (group_id, user_id) VALUES (?, ?)', bind: [groupId, userId] })
  return { userId, groupId }
})
const rule = (principal: number, scope: string, permission: string, action = 'allow') =>
  ({ action, principal: { id: principal }, identity: '', scope, permission, propagate: true })

const chain: number[] = [0]
await main.write((db) => {
  for (let level = 1; level <= DEPTH + 1; level++) {
    const rules = Array.from({ length: level > DEPTH ? 0 : RULES_PER_LEVEL }, (_, i) =>
      i === 0 ? rule(groupId, 'resource', 'read') : i === 1 ? rule(groupId, 'data', 'read')
        : rule(100_000 + i, i % 2 ? 'data' : '', i % 2 ? 'write' : '', i % 3 ? 'allow' : 'deny'))
    db.exec({ sql: `INSERT INTO resource (cls, parent_id, display_name, owner_user_id, creation_date, permissions)
      VALUES (?, ?, ?, 4, '2026-01-01T00:00:00', ?)`, bind: [level > DEPTH ? 'vector_layer' : 'resource_group', chain.at(-1)!, `level ${level}`, JSON.stringify(rules)] })
    chain.push(Number(db.selectValue('SELECT last_insert_rowid()')))
  }
})
const leaf = chain.at(-1)!
const user = (await getUser(data, userId))!
const rulesOnChain = DEPTH * RULES_PER_LEVEL

// Warm: the database did not change since the last check (the common case: reads).
// Each check as the routes make it: through the data port's AclRead (token, then a synchronous evaluation).
const warm = await data.read(async (tx) => {
  if (!await acl.check(tx.acl, user, leaf, 'data', 'read')) throw new Error('the reader should read the leaf')
  const out: number[] = []
  for (let i = 0; i < 2000; i++) {
    const t0 = performance.now()
    await acl.check(tx.acl, user, leaf, 'data', 'read')
    out.push(performance.now() - t0)
  }
  return out
})
// After a write that cannot change permissions (a user's language, as sessions, uploads, the journal): caches stay.
const otherWrite: number[] = []
for (let i = 0; i < 200; i++) {
  await main.write((db) => { db.exec({ sql: `UPDATE principal SET language = ? WHERE id = ?`, bind: [i % 2 ? 'en' : null, userId] }) })
  await data.read(async (tx) => {
    const t0 = performance.now()
    await acl.check(tx.acl, user, leaf, 'data', 'read')
    otherWrite.push(performance.now() - t0)
  })
}
// A rule changed on the root before each check: one naming another principal (the user's answers
// stay), then one naming the user's group (the chain is evaluated again, from nodes in memory).
const rootRules = await main.read((db) => JSON.parse(db.selectValue('SELECT permissions FROM resource WHERE id = 0') as string) as unknown[])
async function afterRootChange(principal: number, runs: number): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < runs; i++) {
    const rules = i % 2 ? rootRules : [...rootRules, rule(principal, 'webmap', 'annotation_read')]
    await main.write((db) => { db.exec({ sql: `UPDATE resource SET permissions = ? WHERE id = 0`, bind: [JSON.stringify(rules)] }) })
    await data.read(async (tx) => {
      const t0 = performance.now()
      if (!await acl.check(tx.acl, user, leaf, 'data', 'read')) throw new Error('the reader should still read the leaf')
      out.push(performance.now() - t0)
    })
  }
  return out
}
const cold = await afterRootChange(100_001, 200)
const coldMine = await afterRootChange(groupId, 200)

// 10,000 children under one group the reader may read; every other one denies the reader.
const parent = chain[1]!
await main.write((db) => {
  const deny = JSON.stringify([rule(groupId, 'resource', 'read', 'deny')])
  for (let i = 0; i < CHILDREN; i++) {
    db.exec({ sql: `INSERT INTO resource (cls, parent_id, display_name, owner_user_id, creation_date, permissions)
      VALUES ('resource_group', ?, ?, 4, '2026-01-01T00:00:00', ?)`, bind: [parent, `child ${i}`, i % 2 ? deny : '[]'] })
  }
  db.exec(`INSERT INTO principal (cls, keyname, display_name, password_hash) VALUES ('U', 'lister', 'Lister', NULL)`)
})
// The listing as a client sees it: `GET /api/resource/?parent=` over the app, as the reader (Basic).
const { hashPassword } = await import('../../sw/auth/password.ts')
const hash = await hashPassword(PASSWORD)
await main.write((db) => { db.exec({ sql: 'UPDATE principal SET password_hash = ? WHERE id = ?', bind: [hash, userId] }) })
const auth = 'Basic ' + Buffer.from(`reader:${PASSWORD}`).toString('base64')
let shown = 0
const list = () => app.fetch(new Request(`http://localhost/api/resource/?parent=${parent}`, { headers: { authorization: auth } }))
// The whole request as a client makes it: routing, Basic, the filter, serializing, and reading the JSON body.
const listing = await timeRuns(10, async () => {
  shown = (await (await list()).json() as unknown[]).length
}, 2)
// The server's share: the same request until the answer's bytes are complete (no decoding, no parse).
let answer = new Uint8Array()
const serverShare = await timeRuns(10, async () => { answer = new Uint8Array(await (await list()).arrayBuffer()) }, 2)
// The answer's bytes, to compare across versions of the code (`cmp`): they must not change.
if (process.env.PERMISSIONS_BENCH_ANSWER) writeFileSync(process.env.PERMISSIONS_BENCH_ANSWER, answer)
// The filter alone, after a rule changed (cold caches): the evaluator's share of the listing.
const rows = await main.read((db) => db.selectObjects('SELECT id, parent_id, cls, permissions FROM resource WHERE parent_id = ?', [parent]))
const filter: number[] = []
for (let i = 0; i < 10; i++) {
  const rules = i % 2 ? rootRules : [...rootRules, rule(groupId, 'webmap', 'annotation_read')]
  await main.write((db) => { db.exec({ sql: `UPDATE resource SET permissions = ? WHERE id = 0`, bind: [JSON.stringify(rules)] }) })
  await data.read(async (tx) => {
    const t0 = performance.now()
    if ((await acl.readable(tx.acl, user, rows as never[])).length !== shown) throw new Error('the filter and the listing disagree')
    filter.push(performance.now() - t0)
  })
}

/**
 * The changes that made the listing and the check after a change fast, each measured with this
 * bench against the code before it and after, runs alternating back to back (kept here: the
 * section is rewritten by every run).
 */
const BEFORE_AFTER = `Which number the listing's target is judged on: the whole answer (request, the client reading
the body and \`JSON.parse\`), as every earlier number here was; the server's share (the request
until the body's bytes are complete) is shown beside it, with the fastest of the 10 runs, because
on this shared machine (2 cores, 3–4 other developers) the medians swing by 2× from run to run.

Before and after the listing's answer going to the Response as SQLite's bytes (no JavaScript
string made out of WASM memory and encoded again), the children read as ids and classes only
(the names read for the shown ones, for the sort), the evaluator keeping each long rule list's
masks per set of principals and class (so a changed node's rules are the only ones walked
again), its two per-check queries prepared once per connection, and a user's principal set kept
by id: this bench on the code before (5b2b886) and after, alternating, three runs each, 02:50
UTC, load average 5.3–6.0 (other developers' work); medians (fastest of 10 for the listing), ms:

| what | before | after |
|---|---|---|
| check, database unchanged | 0.0275, 0.0284, 0.0292 | 0.0083, 0.0179, 0.0043 |
| check after a rule naming another principal changed on the root | 0.0761, 0.0898, 0.0765 | 0.0327, 0.0484, 0.0348 |
| check after a rule naming the user's group changed on the root | 0.11, 0.16, 0.12 | 0.0570, 0.0693, 0.0767 |
| listing, server's share, fastest | 38.4, 42.5, 52.7 | 38.3, 35.6, 32.3 |
| listing, whole answer, fastest | 55.5, 76.2, 61.2 | 75.6, 51.9, 50.8 |

The answer's bytes are the same (\`cmp\` of this bench's answer, \`PERMISSIONS_BENCH_ANSWER=<file>\`,
after each pair). The listing's medians at this load say nothing either way (61–132 ms in both
columns). Measured in process at load ~6 (an uncommitted copy of this bench timing each step, fastest
of 3): reading 10,000 children as [id, class, name] ~10 ms before, as ids and classes ~3–5 after;
the filter ~1.3; the names of the 5,001 shown and the sort ~2–3; the query writing the 1.77 MB
answer ~18 (the same query before and after), now copied out as bytes (~0.5) instead of made into
a string (~6) and encoded again. The client's share (reading the body, \`JSON.parse\`) is ~15 ms
of the whole answer, which is why the whole answer is still around 50 ms at best here.

Before and after SQLite serializing the listing (the answer's text built by one query, no objects in
JavaScript; the children read as id, class and name only; rules read only for nodes not in memory):
this bench on the code before (544304f) and after, alternating, three runs each, 00:25 UTC, load
average 3.4–4.0 (other developers' work); medians of each run, ms:

| what | before | after |
|---|---|---|
| \`GET /api/resource/?parent=\` of 10,000 children, 5,001 shown, whole answer | 79.1, 86.3, 132.8 | 58.0, 62.2, 58.4 |
| filtering 10,000 children after a rule changed | 6.44, 7.60, 11.9 | 6.36, 7.01, 7.04 |

The answer's bytes are the same (compared with \`cmp\` for this bench's 5,001 children). The listing
still misses its 50 ms target at this load. Where its time goes now (a listing-only copy of this
bench at load ~1.7, one request ~54 ms): reading the 10,000 children's id, class and name as one JSON
text ~5 ms and parsing it ~3; the ACL filter ~1.5 (the rules are in memory); sorting the 5,001 shown
~2; the query that writes the 1.77 MB answer ~17 ms and moving that text out of WASM into a
JavaScript string ~6; then the client: reading the body as text ~7 ms and \`JSON.parse\` ~9. What
is left is mostly the answer's size (5,001 objects of ~350 bytes) on both sides.

Before and after batching the listing and keeping the compiled rules across changes (this bench run
on the code before, then after, at 23:56 UTC; load average 2.7 both times; medians, ms):

| what | before | after |
|---|---|---|
| check after a rule naming another principal changed on the root | 0.63 | 0.072 |
| check after a rule naming the user's group changed on the root | 0.61 | 0.10 |
| filtering 10,000 children after a rule changed | 14.7 | 6.89 |
| \`GET /api/resource/?parent=\` of 10,000 children, 5,001 shown, whole answer | 483.7 | 81.8 |

(This section said 2,391 ms for the listing and 1.10 ms for the check after a change before
those; those runs wrote back the same rules instead of changing one, and their load is not known.)`

const fmt = (ms: number) => (ms >= 10 ? ms.toFixed(1) : ms >= 0.1 ? ms.toFixed(2) : ms.toFixed(4))
const lines = [
  `| the check of one request, ${rulesOnChain} rules on ${DEPTH} ancestors, database unchanged since the last check | ${fmt(median(warm))} ms | < 0.1 ms |`,
  `| the same check after a write that changes no permission (a user's language) | ${fmt(median(otherWrite))} ms | < 0.1 ms |`,
  `| the same check after a rule changed anywhere (on the root, naming another principal: that node read again) | ${fmt(median(cold))} ms | < 0.1 ms |`,
  `| the same check after a rule naming the user's group changed on the root (that node read again, the chain derived again from each node's kept masks) | ${fmt(median(coldMine))} ms | < 0.1 ms |`,
  `| filtering ${CHILDREN.toLocaleString('en')} children, half hidden, after a rule changed | ${fmt(median(filter))} ms | < 50 ms |`,
  `| \`GET /api/resource/?parent=\` of ${CHILDREN.toLocaleString('en')} children as that user (${shown} shown), the whole answer: request, body read and \`JSON.parse\` by the client (the target's measure) | ${fmt(median(listing))} ms (fastest ${fmt(Math.min(...listing))}) | < 50 ms |`,
  `| the same listing, the server's share: request until the body's ${(answer.length / 1e6).toFixed(2)} MB are complete | ${fmt(median(serverShare))} ms (fastest ${fmt(Math.min(...serverShare))}) | |`,
]
console.log(lines.join('\n'))
writeSection('Permissions', `
Machine: ${machine()}. Medians, measured by \`test/bench/permissions.bench.ts\` in process on the Node platform
(memory store): 2,000 warm checks, 200 checks after each kind of write, 10 filters, and 10 listings of each kind (after 2 warm-up runs); load average at the start ${loadAtStart.map((l) => l.toFixed(1)).join(', ')}.

| what | time | target |
|---|---|---|
${lines.join('\n')}

${BEFORE_AFTER}
`)
process.exit(0)
