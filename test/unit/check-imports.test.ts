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
})
