/**
 * @module catalogue/folder
 * Reads a catalogue in the QMS data layout (`geoservices.json`, `icons.json`, `icons/<id>.png`,
 * `icons/default.png`, `geoservice_status*.json`) through a file reader the host supplies,
 * into the body the import route takes. The Node host's `--catalogue <folder>` uses it.
 */
import { toBase64 } from '../core/bytes.ts'
import { validationError } from '../core/error.ts'

export type ReadFile = (name: string) => Promise<Uint8Array | undefined>

const STATUS_FILES = ['geoservice_status.json', 'geoservice_status.synthetic.json']

async function readJsonFile(read: ReadFile, name: string): Promise<unknown> {
  const bytes = await read(name)
  if (!bytes) return undefined
  try {
    return JSON.parse(new TextDecoder().decode(bytes))
  } catch {
    throw validationError(`${name} is not valid JSON.`)
  }
}

/** The import body for a folder; a missing `geoservices.json` or icon file is a 422. */
export async function readCatalogueFolder(read: ReadFile): Promise<Record<string, unknown>> {
  const geoservices = await readJsonFile(read, 'geoservices.json')
  if (geoservices === undefined) throw validationError('The folder has no geoservices.json.')
  const iconList = ((await readJsonFile(read, 'icons.json')) ?? []) as Array<Record<string, unknown>>
  if (!Array.isArray(iconList)) throw validationError('icons.json must hold an array.')
  const icons = await Promise.all(iconList.map(async (i) => {
    const png = await read(`icons/${String(i.id)}.png`)
    if (!png) throw validationError(`The folder has no icons/${String(i.id)}.png.`)
    return { ...i, content: toBase64(png) }
  }))
  let statuses: unknown = []
  for (const f of STATUS_FILES) {
    const v = await readJsonFile(read, f)
    if (v !== undefined) { statuses = v; break }
  }
  const def = await read('icons/default.png')
  return { geoservices, icons, geoservice_status: statuses, ...(def ? { default_icon: toBase64(def) } : {}) }
}
