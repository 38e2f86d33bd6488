/**
 * @module catalogue/service
 * The catalogue's state per app: its store (`data.catalogue()`, opened on the first catalogue
 * request and filled with the built-in catalogue when new), the in-memory index over it, and
 * the all-or-nothing replacement by an import. The index and the resized icons are re-read
 * whenever the store's change token (`'catalogue'`) moves, so they never outlive what they
 * were read from.
 */
import type { Platform } from '../platform/platform.ts'
import type { ChangeTokens } from '../port/port.ts'
import { CatalogueIndex } from './index.ts'
import { coverResize, decodeRgba, encodeRgba } from '../image/png.ts'
import type { CatalogueData } from './records.ts'
import type { CatalogueStore } from './repository.ts'
import { builtinDefaultIcon, defaultCatalogue } from './default-catalogue.ts'
import { normaliseCatalogue, readImport } from './records.ts'
import { loadSrids } from './geometry.ts'
import type { EpsgSource } from '../geo/srs.ts'

/** What the catalogue uses of the data port. */
export interface CataloguePort { catalogue(): Promise<CatalogueStore>; tokens: ChangeTokens }

export class Catalogue {
  readonly #store: CatalogueStore
  readonly #tokens: ChangeTokens
  #index!: CatalogueIndex
  /** The store's token when `#index` was read; another one means a re-read. */
  #token = ''
  /** Resized icons by `id:w:h` (`default:w:h`); dropped with the index. */
  #resized = new Map<string, Uint8Array>()

  #epsg: EpsgSource

  private constructor(store: CatalogueStore, tokens: ChangeTokens, epsg: EpsgSource) {
    this.#store = store
    this.#tokens = tokens
    this.#epsg = epsg
  }

  /** Opens the catalogue's store, filled with the built-in catalogue when new. */
  static async open(platform: Pick<Platform, 'epsg'>, data: CataloguePort): Promise<Catalogue> {
    const cat = new Catalogue(await data.catalogue(), data.tokens, platform.epsg)
    if (await cat.#store.source() === undefined) {
      const def = defaultCatalogue()
      await cat.replace({ ...normaliseCatalogue(def.services, def.statuses, def.icons), defaultIcon: def.defaultIcon }, 'default')
    } else {
      await cat.current()
    }
    return cat
  }

  /** This catalogue, its index re-read first if the store changed since it was read. */
  async current(): Promise<this> {
    if (this.#tokens.current('catalogue') !== this.#token) await this.#reindex()
    return this
  }

  /** The index as of the last `current()` (or replace). */
  get index(): CatalogueIndex { return this.#index }

  /** Replaces the catalogue with an import body (422 on any fault, the previous one kept). */
  async import(body: Record<string, unknown>): Promise<void> {
    const services = Array.isArray(body.geoservices) ? body.geoservices as Record<string, unknown>[] : []
    await loadSrids(services.flatMap((s) => [s?.boundary, s?.extent]), this.#epsg)
    await this.replace(readImport(body), 'import')
  }

  /** Replaces everything in one transaction; a failure leaves the previous catalogue. */
  async replace(data: CatalogueData, source: 'default' | 'import'): Promise<void> {
    await this.#store.replace(data, source)
    await this.#reindex()
  }

  async #reindex(): Promise<void> {
    // The token first: a change that lands while this reads moves it again, so the next
    // request reads once more rather than keeping an index older than its token.
    const token = this.#tokens.current('catalogue')
    const { services, statuses, icons } = await this.#store.load()
    await loadSrids(services.flatMap((s) => [s.boundary, s.extent]), this.#epsg)
    this.#index = new CatalogueIndex(services, statuses, icons)
    this.#resized.clear()
    this.#token = token
  }

  /** The icon as a PNG of exactly `width` × `height`; `undefined` when there is no such icon. */
  async iconPng(id: number | 'default', width: number, height: number): Promise<Uint8Array | undefined> {
    const key = `${id}:${width}:${height}`
    const hit = this.#resized.get(key)
    if (hit) return hit
    const original = await this.#store.icon(id)
    const src = original ?? (id === 'default' ? builtinDefaultIcon() : undefined)
    if (!src) return undefined
    const png = encodeRgba(coverResize(decodeRgba(src), width, height))
    // A bounded cache: clients ask for a few sizes of a few dozen icons.
    if (this.#resized.size > 512) this.#resized.clear()
    this.#resized.set(key, png)
    return png
  }
}
