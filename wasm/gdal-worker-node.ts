/**
 * @module wasm/gdal-worker-node
 * The inside of the Node host's GDAL thread (`gdal-thread-node.ts`): gdal3.js started here, each
 * message one `GdalEngine` call, answered with its value (bytes transferred) or its error.
 */
import { parentPort } from 'node:worker_threads'
import { initGdalNode } from './gdal-node.ts'
import { gdalEngine } from './gdal-engine.ts'
import { transferable } from './gdal-thread-node.ts'
import type { GdalEngine } from './gdal.ts'

const engine = initGdalNode().then(gdalEngine)
const port = parentPort!

/** Whether no job's files are in GDAL's memory (the thread may end: `gdal-thread-node.ts`). */
async function idle(e: GdalEngine): Promise<boolean> {
  return (await e.readdir('/input')).length === 0 && (await e.readdir('/output')).length === 0
}

port.on('message', async ({ id, op, args }: { id: number; op: keyof GdalEngine | 'idle'; args: unknown[] }) => {
  try {
    const e = await engine
    const value = op === 'idle' ? await idle(e) : await (e[op] as (...a: unknown[]) => Promise<unknown>)(...args)
    if (value instanceof Uint8Array) {
      const own = transferable(value)
      port.postMessage({ id, value: own }, [own.buffer as ArrayBuffer])
    } else {
      port.postMessage({ id, value })
    }
  } catch (error) {
    // gdal3.js rejects with a list of `{no, message}`; anything that cannot be cloned goes as text.
    try {
      port.postMessage({ id, failed: true, error })
    } catch {
      port.postMessage({ id, failed: true, error: String(error) })
    }
  }
})
