/**
 * @module wasm/sqlite
 * Lazy loader for SQLite-WASM. The same module serves both hosts: the package's `node`
 * export reads the .wasm from disk; in the worker the host passes the `fetch` that gets the
 * .wasm (from its precache, so SQLite starts offline) and the file's URL.
 */
import sqlite3InitModule, { type Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { sharedStart } from '../sw/core/once.ts'

export interface SqliteLoaderOptions {
  /** How the .wasm is fetched; SQLite's own global `fetch` when absent (Node reads the file). */
  fetch?: typeof globalThis.fetch
  /** Where the .wasm is; needed with `fetch`. */
  wasmUrl?: string
}

/** Returns a function that starts SQLite on its first call and shares it afterwards. */
export function createSqliteLoader(opts: SqliteLoaderOptions = {}): () => Promise<Sqlite3Static> {
  const { fetch, wasmUrl } = opts
  if (!fetch || !wasmUrl) return sharedStart(() => sqlite3InitModule())
  const init = sqlite3InitModule as (module?: Record<string, unknown>) => Promise<Sqlite3Static>
  return sharedStart(() => new Promise<Sqlite3Static>((resolve, reject) => {
    // Emscripten's hook for instantiating the module itself: the way to choose the fetch.
    // Emscripten has no way to hear of a failure there, so it rejects the start directly.
    const instantiateWasm = (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => {
      fetch(wasmUrl, { credentials: 'same-origin' })
        .then((res) => {
          if (!res.ok) throw new Error(`${wasmUrl} answered ${res.status}.`)
          return WebAssembly.instantiateStreaming(res, imports)
        })
        .then(({ instance, module }) => done(instance, module), reject)
      return {}
    }
    init({ instantiateWasm }).then(resolve, reject)
  }))
}
