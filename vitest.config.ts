import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import SlowestFirst from './test/sequencer.ts'

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/api/**/*.test.ts', 'sw/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least two files at once. Vitest's default is one core fewer than the machine has: one
    // worker on CI's 2 cores (766 s, the sum of the files' own times plus imports), while most
    // files wait on what they started (Node hosts in child processes, PostgreSQL, GDAL, sockets).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The slowest files first, so the workers end together (test/sequencer.ts).
    sequence: { sequencer: SlowestFirst },
  },
})
