/**
 * One throwaway cluster per test file (test/pg/cluster.ts), started on first use and stopped
 * after the file's tests.
 */
import { afterAll } from 'vitest'
import { startCluster, type Cluster } from './cluster.ts'

let started: Promise<Cluster> | undefined

export function cluster(): Promise<Cluster> {
  return started ??= startCluster(process.pid + Math.floor(Math.random() * 5000))
}

afterAll(async () => { await (await started)?.stop() })
