import { expect, test } from '@playwright/test'
import { gotoControlled, swApi } from './helpers.ts'
import { Generator } from '../fuzz/generator.ts'
import { createKnown, keepKnown, treeProblems } from '../fuzz/setup.ts'

// A smaller share of the Node fuzz run (test/api/fuzz.test.ts), answered by the service
// worker over real IndexedDB: no 5xx, and a whole tree at the end.
const SEED = Number(process.env.FUZZ_SEED ?? 20261123) + 1
const CASES = Number(process.env.FUZZ_SW_CASES ?? 400)

test(`the service worker answers ${CASES} generated requests without a 5xx`, async ({ browser }) => {
  test.setTimeout(240_000)
  console.log(`fuzz in the worker: seed ${SEED}, ${CASES} cases`)
  const page = await (await browser.newContext()).newPage()
  await gotoControlled(page)
  const api = swApi(page)
  const gen = new Generator(SEED, await createKnown(api))
  const failures: string[] = []
  for (let i = 0; i < CASES; i++) {
    if (i % 25 === 0) gen.known = await keepKnown(api, gen.known)
    const { method, path, opts } = gen.next()
    const res = await api.request(method, path, opts)
    if (res.status >= 500) failures.push(`#${i} ${method} ${path.slice(0, 120)} ${JSON.stringify(opts).slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`)
  }
  expect(failures, `seed ${SEED}`).toEqual([])
  expect(await treeProblems(api)).toEqual([])
  await page.context().close()
})
