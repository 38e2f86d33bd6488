import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

const SCRIPT = 'scripts/check-imports.mjs'

/** Runs the checker on a tree of `files` (path → source). */
function check(files: Record<string, string>): { status: number | null; out: string } {
  const root = mkdtempSync(join(tmpdir(), 'outpost-imports-'))
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, dirname(path)), { recursive: true })
      writeFileSync(join(root, path), text)
    }
    const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' })
    return { status: r.status, out: r.stdout + r.stderr }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

describe('scripts/check-imports.mjs', () => {
  it('passes the repository itself', () => {
    const r = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  })

  it('passes imports that run downwards, within a component and between components services', () => {
    const r = check({
      'sw/core/error.ts': 'export const x = 1\n',
      'sw/geo/geometry.ts': "import { x } from '../core/error.ts'\n",
      'sw/upload/service.ts': "import type { x } from '../core/error.ts'\n",
      'sw/feature/routes.ts': "import { y } from './write.ts'\nimport { z } from '../upload/service.ts'\n",
      'sw/feature/write.ts': "export * from '../geo/geometry.ts'\n",
      'sw/classes/registry.ts': "import { a } from './vector_layer/index.ts'\n",
      'sw/classes/vector_layer/index.ts': "import type { F } from '../../feature/write.ts'\n",
      'sw/app.ts': "import { r } from './classes/registry.ts'\n",
      'sw/host/node.ts': "import { app } from '../app.ts'\n",
      'src/main.ts': "import { createApp } from 'vue'\n",
    })
    expect(r.out).toMatch(/import only downwards/)
    expect(r.status).toBe(0)
  })

  it('fails on a wrong-way import, a circle, another component\'s routes, another class and the UI importing sw/', () => {
    const r = check({
      'sw/core/routes.ts': "import type { Services } from '../services.ts'\n",
      'sw/services.ts': 'export interface Services {}\n',
      'sw/feature/a.ts': "import { b } from './b.ts'\n",
      'sw/feature/b.ts': "import { a } from './a.ts'\n",
      'sw/feature/attachment.ts': "import { mountUpload } from '../upload/routes.ts'\n",
      'sw/upload/routes.ts': 'export const mountUpload = 1\n',
      'sw/feature/layers.ts': "import { registry } from '../classes/registry.ts'\n",
      'sw/classes/registry.ts': 'export const registry = 1\n',
      'sw/classes/raster_layer/index.ts': "import { store } from '../vector_layer/layers.ts'\n",
      'sw/classes/vector_layer/layers.ts': 'export const store = 1\n',
      'src/App.vue': "<script setup lang=\"ts\">\nimport { createApp } from '../sw/app.ts'\n</script>\n",
    })
    expect(r.status).toBe(1)
    expect(r.out).toContain('sw/core/routes.ts → sw/services.ts: core must not import app')
    expect(r.out).toContain('import circle: sw/feature/a.ts → sw/feature/b.ts → sw/feature/a.ts')
    expect(r.out).toContain('sw/feature/attachment.ts → sw/upload/routes.ts: a component calls another\'s services, never its routes')
    expect(r.out).toContain('sw/feature/layers.ts → sw/classes/registry.ts: components must not import class registry')
    expect(r.out).toContain('sw/classes/raster_layer/index.ts → sw/classes/vector_layer/layers.ts: a class folder must not import another class')
    expect(r.out).toContain('src/App.vue → sw/app.ts: the UI talks to the backend over HTTP only')
  })

  const MARKER = '// port: legacy-sql (issue 22)\n'

  it('passes the layering of the data port: components → sw/port ← sw/sqlite, chosen by the app and the hosts, SQL only there', () => {
    const r = check({
      'sw/store/database.ts': 'export class Database {}\n',
      'sw/store/store.ts': "import type { Database } from './database.ts'\n",
      'sw/platform/platform.ts': "import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'\n",
      'sw/resource/repository.ts': 'export interface ResourceRead { get(id: number): Promise<unknown> }\n',
      'sw/port/port.ts': "import type { ResourceRead } from '../resource/repository.ts'\n",
      'sw/resource/service.ts': "import type { DataPort } from '../port/port.ts'\n// A comment may say SELECT * FROM resource.\nexport const m = 'Select a parent first.'\n",
      'sw/sqlite/main/resources.ts': "import type { ResourceRead } from '../../resource/repository.ts'\nimport type { Database } from '../../store/database.ts'\nexport const q = 'SELECT id FROM resource WHERE id = ?'\n",
      'sw/sqlite/port.ts': "import { q } from './main/resources.ts'\nimport type { DataPort } from '../port/port.ts'\n",
      'sw/services.ts': "import { q } from './sqlite/port.ts'\n",
      'sw/host/node.ts': "import { q } from '../sqlite/port.ts'\nimport { Database } from '../store/database.ts'\n",
      'wasm/sqlite.ts': "import sqlite3InitModule from '@sqlite.org/sqlite-wasm'\n",
    })
    expect(r.out).toMatch(/import only downwards/)
    expect(r.status).toBe(0)
  })

  it('fails on an implementation chosen below the app (R1), the kernel held (R2) and SQL written (R3) outside sw/sqlite, and on a leftover marker', () => {
    const r = check({
      'sw/store/database.ts': 'export class Database {}\n',
      'sw/store/row-reader.ts': 'export class RowReader {}\n',
      'sw/sqlite/port.ts': 'export const openSqlitePort = 1\n',
      'sw/resource/routes.ts': "import { openSqlitePort } from '../sqlite/port.ts'\n",
      'sw/classes/raster_layer/files.ts': "import { openSqlitePort } from '../../sqlite/port.ts'\n",
      'sw/upload/rows.ts': "import type { Database } from '../store/database.ts'\n",
      'sw/mvt/scan.ts': "import { RowReader } from '../store/row-reader.ts'\n",
      'sw/diagnostics/service.ts': "import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'\n",
      'sw/auth/principals.ts': 'export const q = `SELECT id FROM principal WHERE keyname = ?`\n',
      'sw/upload/service.ts': "export const q = 'INSERT OR REPLACE INTO upload (id) VALUES (?)'\n",
      'sw/feature/tiles.ts': 'export const t = (db: { exec(s: string): void }) => db.exec(`CREATE TEMP TRIGGER t AFTER UPDATE ON f BEGIN END`)\n',
      'sw/export/source.ts': 'export const open = (p: { sqlite(): unknown }) => p.sqlite()\n',
      'sw/files/service.ts': `${MARKER}export const f = 1\n`,
    })
    expect(r.status).toBe(1)
    const rule = (s: string) => expect(r.out).toContain(s)
    rule('sw/resource/routes.ts → sw/sqlite/port.ts: only the app (sw/services.ts) and the hosts choose an implementation of the data port (R1)')
    rule('sw/classes/raster_layer/files.ts → sw/sqlite/port.ts: only the app (sw/services.ts) and the hosts choose an implementation of the data port (R1)')
    rule('sw/upload/rows.ts → sw/store/database.ts: the SQLite kernel belongs to sw/sqlite and sw/store (R2)')
    rule('sw/mvt/scan.ts → sw/store/row-reader.ts: the SQLite kernel belongs to sw/sqlite and sw/store (R2)')
    rule('sw/diagnostics/service.ts → @sqlite.org/sqlite-wasm: the SQLite kernel belongs to sw/sqlite and sw/store (R2)')
    rule("sw/auth/principals.ts: SQL ('SELECT') belongs to sw/sqlite, behind the data port (R3)")
    rule("sw/upload/service.ts: SQL ('INSERT OR REPLACE INTO') belongs to sw/sqlite, behind the data port (R3)")
    rule("sw/feature/tiles.ts: SQL ('CREATE TEMP TRIGGER') belongs to sw/sqlite, behind the data port (R3)")
    rule("sw/export/source.ts: SQL ('.sqlite()') belongs to sw/sqlite, behind the data port (R3)")
    rule("sw/files/service.ts: '// port: legacy-sql (issue 22)' exempts nothing any more (the port is complete): remove it and move the SQL behind the port")
  })

  it('keeps the two implementations apart (R1) and the PostgreSQL driver in sw/postgres (R4); SQL is at home in sw/postgres', () => {
    const r = check({
      'sw/sqlite/port.ts': 'export const openSqlitePort = 1\n',
      'sw/postgres/conn.ts': "import pg from 'pg'\nexport const q = 'SELECT 1'\n",
      'sw/postgres/port.ts': "import { q } from './conn.ts'\nimport { openSqlitePort } from '../sqlite/port.ts'\n",
      'sw/host/node.ts': "import { q } from '../postgres/conn.ts'\n",
      'sw/feature/pg-reader.ts': "import pg from 'pg'\n",
      'sw/resource/service.ts': "import { q } from '../postgres/conn.ts'\n",
    })
    expect(r.status).toBe(1)
    expect(r.out).toContain('sw/postgres/port.ts → sw/sqlite/port.ts: only the app (sw/services.ts) and the hosts choose an implementation of the data port (R1)')
    expect(r.out).toContain('sw/resource/service.ts → sw/postgres/conn.ts: only the app (sw/services.ts) and the hosts choose an implementation of the data port (R1)')
    expect(r.out).toContain('sw/feature/pg-reader.ts → pg: the PostgreSQL driver belongs to sw/postgres (R4)')
    expect(r.out).not.toMatch(/^  sw\/postgres\/conn\.ts/m)
    expect(r.out).not.toContain('sw/host/node.ts')
  })

  it('refuses a re-export shim that points into sw/sqlite (R1): the moves are done, no old path stays', () => {
    const r = check({
      'sw/sqlite/features/reader.ts': 'export const LayerReader = 1\n',
      'sw/classes/vector_layer/reader.ts': "// moved\nexport * from '../../sqlite/features/reader.ts'\n",
    })
    expect(r.status).toBe(1)
    expect(r.out).toContain('sw/classes/vector_layer/reader.ts → sw/sqlite/features/reader.ts: only the app (sw/services.ts) and the hosts choose an implementation of the data port (R1)')
  })

  it('the old marker exempts nothing, wherever it stands: the file is reported for its SQL and for the marker', () => {
    const r = check({
      'sw/store/database.ts': 'export class Database {}\n',
      'sw/auth/principals.ts': `${MARKER}import type { Database } from '../store/database.ts'\nexport const q = 'SELECT 1'\n`,
      'sw/upload/rows.ts': `\n${MARKER}export const q = 'DELETE FROM upload WHERE id = ?'\n`,
    })
    expect(r.status).toBe(1)
    expect(r.out).toContain('sw/auth/principals.ts → sw/store/database.ts: the SQLite kernel belongs to sw/sqlite and sw/store (R2)')
    expect(r.out).toContain("sw/auth/principals.ts: SQL ('SELECT') belongs to sw/sqlite, behind the data port (R3)")
    expect(r.out).toContain("sw/upload/rows.ts: SQL ('DELETE FROM') belongs to sw/sqlite, behind the data port (R3)")
    expect(r.out).toContain("sw/upload/rows.ts: '// port: legacy-sql (issue 22)' exempts nothing any more")
    expect(r.out).toContain("sw/auth/principals.ts: '// port: legacy-sql (issue 22)' exempts nothing any more")
  })
})
