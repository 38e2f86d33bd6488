/**
 * The order vitest starts the test files in: the slowest first, so that the workers finish
 * together. Vitest orders by the durations it cached on an earlier run, and without that cache
 * (CI's clean clone) by file size, largest first: the suites that run the shared case groups
 * are the smallest files and among the slowest, so they started last and one worker ran them
 * alone at the end. Without a cache, the seconds below (a full CI run on 2 cores) order the
 * files they name; the others follow in vitest's order.
 */
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Seconds each file took in `npm test` on CI's 2 cores (27 Nov); the files over ~20 s. */
export const MEASURED_SECONDS: Record<string, number> = {
  'test/api/node-host-pg.test.ts': 116,
  'test/api/sync-pg.test.ts': 86,
  'test/api/node-host-owned.test.ts': 75,
  'test/api/node-host.test.ts': 72,
  'test/api/team-processes.test.ts': 58,
  'test/api/sync.test.ts': 45,
  'test/api/fuzz.test.ts': 42,
  'test/api/folder-lock.test.ts': 38,
  'test/api/durability.test.ts': 36,
  'test/api/node-build.test.ts': 32,
  'test/api/node-s3-blobs.test.ts': 32,
  'test/api/hostile-remote.test.ts': 28,
  'test/unit/pg-port.test.ts': 26,
  'test/api/trust-proxy.test.ts': 25,
  'test/api/node-migrate.test.ts': 25,
}

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const key = (f: TestSpecification) => `${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`
    if (sorted.every((f) => this.ctx.cache.getFileTestResults(key(f)))) return sorted
    const seconds = (f: TestSpecification) => MEASURED_SECONDS[relative(this.ctx.config.root, f.moduleId).replaceAll('\\', '/')] ?? 0
    // Array.prototype.sort is stable: the files the table does not name keep vitest's order.
    return sorted.sort((a, b) => seconds(b) - seconds(a))
  }
}
