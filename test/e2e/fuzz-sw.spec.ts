import { expect, test } from '@playwright/test'
import { gotoControlled, swApi } from './helpers.ts'
import { Generator } from '../fuzz/generator.ts'
import { createKnown, createReader, createRemotes, createSecret, keepKnown, sendJudged, treeProblems } from '../fuzz/setup.ts'
import { HostileRemote, type HostileMode } from '../api/hostile-remote.ts'

/** The hostile remotes that answer at once (the worker keeps its default limits: no timeouts or 64 MiB bodies here). */
const HOSTILE: HostileMode[] = ['huge', 'not-array', 'truncated', 'nulls', 'deep', 'not-json', 'html-error', 'ngw-error', 'ok']

// A smaller share of the Node fuzz run (test/api/fuzz.test.ts), answered by the service
// worker over real IndexedDB, as the administrator, an ordinary user and the guest: no 5xx, no
// refused write that changed something, nothing shown that the user may not read, and a whole
// tree at the end.
const SEED = Number(process.env.FUZZ_SEED ?? 20261123) + 1
const CASES = Number(process.env.FUZZ_SW_CASES ?? 400)

test(`the service worker answers ${CASES} generated requests without a 5xx`, async ({ browser }) => {
  test.setTimeout(240_000)
  console.log(`fuzz in the worker: seed ${SEED}, ${CASES} cases`)
  const page = await (await browser.newContext()).newPage()
  await gotoControlled(page)
  const api = swApi(page)
  const hostile = await new HostileRemote().start()
  const reader = await createReader(api)
  const gen = new Generator(SEED, { ...await createKnown(api, reader), secret: await createSecret(api),
    remotes: await createRemotes(api, HOSTILE.map((m) => hostile.url(m))) })
  const failures: string[] = []
  for (let i = 0; i < CASES; i++) {
    if (i % 25 === 0) gen.known = await keepKnown(api, gen.known)
    const req = gen.next()
    const { method, path, opts } = req
    const { problems } = await sendJudged(api, gen.known, req)
    for (const p of problems) failures.push(`#${i} ${method} ${path.slice(0, 120)} ${JSON.stringify(opts).slice(0, 300)} → ${p}`)
  }
  expect(failures, `seed ${SEED}`).toEqual([])
  expect(await treeProblems(api)).toEqual([])
  await page.context().close()
  await hostile.close()
})
