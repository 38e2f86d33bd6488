// port: legacy-sql (issue 22)
/**
 * @module catalogue/service
 * The catalogue's state per app: its database (opened on the first catalogue request, and
 * filled with the built-in catalogue when new), the in-memory index over it, and the
 * all-or-nothing replacement by an import.
 */
import type { Platform } from '../platform/platform.ts'
import { Database, type SqlDb } from '../store/database.ts'
import { CatalogueIndex } from './index.ts'
import { coverResize, decodeRgba, encodeRgba } from '../image/png.ts'
import type { CatalogueData, Detail } from './records.ts'
import { migrateCatalogue } from './schema.ts'
import { builtinDefaultIcon, defaultCatalogue } from './default-catalogue.ts'
import { normaliseCatalogue, readImport } from './records.ts'
import { loadSrids } from './geometry.ts'
import type { EpsgSource } from '../geo/srs.ts'

export class Catalogue {
  #db: Database
  #index!: CatalogueIndex
  /** Resized icons by `id:w:h` (`default:w:h`); cleared by an import. */
  #resized = new Map<string, Uint8Array>()

  #epsg: EpsgSource

  private constructor(db: Database, epsg: EpsgSource) {
    this.#db = db
    this.#epsg = epsg
  }

  /** Opens the catalogue's database, filled with the built-in catalogue when new. */
  static async open(platform: Platform): Promise<Catalogue> {
    const db = await Database.open(await platform.sqlite(), platform.store, 'catalogue', migrateCatalogue)
    const cat = new Catalogue(db, platform.epsg)
    const seeded = await db.read((d) => d.selectValue(`SELECT value FROM meta WHERE key = 'source'`))
    if (seeded === undefined) {
      const def = defaultCatalogue()
      await cat.replace({ ...normaliseCatalogue(def.services, def.statuses, def.icons), defaultIcon: def.defaultIcon }, 'default')
    } else {
      await cat.#reindex()
    }
    return cat
  }

  get index(): CatalogueIndex { return this.#index }

  /** Its database, for the data port's 'catalogue' change token (sw/sqlite/tokens.ts) until WP-B moves it there. */
  get database(): Database { return this.#db }

  /** Replaces the catalogue with an import body (422 on any fault, the previous one kept). */
  async import(body: Record<string, unknown>): Promise<void> {
    const services = Array.isArray(body.geoservices) ? body.geoservices as Record<string, unknown>[] : []
    await loadSrids(services.flatMap((s) => [s?.boundary, s?.extent]), this.#epsg)
    await this.replace(readImport(body), 'import')
  }

  /** Replaces everything in one transaction; a failure leaves the previous catalogue. */
  async replace(data: CatalogueData, source: 'default' | 'import'): Promise<void> {
    await this.#db.write((d) => {
      d.exec('DELETE FROM geoservice_status; DELETE FROM geoservice; DELETE FROM icon;')
      for (const i of data.icons) d.exec('INSERT INTO icon (id, guid, name, png) VALUES (?, ?, ?, ?)', { bind: [i.id, i.guid, i.name, i.png] })
      for (const s of data.services) d.exec('INSERT INTO geoservice (id, record) VALUES (?, ?)', { bind: [s.id as number, JSON.stringify(s)] })
      for (const s of data.statuses) {
        d.exec('INSERT INTO geoservice_status (id, geoservice, record) VALUES (?, ?, ?)', { bind: [s.id as number, s.geoservice as number, JSON.stringify(s)] })
      }
      d.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('source', ?)`, { bind: [source] })
      if (data.defaultIcon) d.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('default_icon', ?)`, { bind: [data.defaultIcon] })
      else if (source === 'default') d.exec(`DELETE FROM meta WHERE key = 'default_icon'`)
    })
    this.#resized.clear()
    await this.#reindex()
  }

  async #reindex(): Promise<void> {
    const { services, statuses, icons } = await this.#db.read((d) => {
      const rows = (sql: string) => d.selectValues(sql).map((v) => JSON.parse(String(v)) as Detail)
      return { services: rows('SELECT record FROM geoservice'), statuses: rows('SELECT record FROM geoservice_status'),
        icons: d.selectObjects('SELECT id, guid, name FROM icon') as Array<{ id: number; guid: string; name: string }> }
    })
    await loadSrids(services.flatMap((s) => [s.boundary, s.extent]), this.#epsg)
    this.#index = new CatalogueIndex(services, statuses, icons)
  }

  /** The icon as a PNG of exactly `width` × `height`; `undefined` when there is no such icon. */
  async iconPng(id: number | 'default', width: number, height: number): Promise<Uint8Array | undefined> {
    const key = `${id}:${width}:${height}`
    const hit = this.#resized.get(key)
    if (hit) return hit
    const original = await this.#db.read((d: SqlDb) => (id === 'default'
      ? d.selectValue(`SELECT value FROM meta WHERE key = 'default_icon'`)
      : d.selectValue('SELECT png FROM icon WHERE id = ?', [id])) as Uint8Array | undefined)
    const src = original ?? (id === 'default' ? builtinDefaultIcon() : undefined)
    if (!src) return undefined
    const png = encodeRgba(coverResize(decodeRgba(src), width, height))
    // A bounded cache: clients ask for a few sizes of a few dozen icons.
    if (this.#resized.size > 512) this.#resized.clear()
    this.#resized.set(key, png)
    return png
  }
}
