/**
 * @module map/crowded-tiles
 * Crowded vector tiles as images. A feature layer's tiles are decoded in the map's worker
 * (map/tile-decoder); a crowded one (the crowded-tile rule, map/layer-kinds) comes back with its
 * points painted into a bitmap there, once. The layer is then two OpenLayers layers over one
 * decoding: a `VectorTile` layer draws each tile's remaining features with the app's styles
 * (`vectorLoad`), an image-tile layer shows the painted points (`imageLoad`, no image for a
 * tile that is not crowded). OpenLayers redrew a crowded tile's 16,000 dots as polygons
 * whenever it built the tile, in the frame that needed it; an image is only copied
 * (docs/rendering.md, "Crowded tiles as images"). The points' coordinates and ids stay here,
 * so a click can still pick one (`featureAt`). The open feature is not highlighted when it is
 * a painted point (it is hidden under its form's sketch anyway; docs/rendering.md).
 */
import type Tile from 'ol/Tile.js'
import type VectorTile from 'ol/VectorTile.js'
import type RenderFeature from 'ol/render/Feature.js'
import type TileGrid from 'ol/tilegrid/TileGrid.js'
import type { ImageLike } from 'ol/DataTile.js'
import { containsXY, type Extent } from 'ol/extent.js'
import { renderXYZTemplate } from 'ol/uri.js'
import { toSize } from 'ol/size.js'
import { decodeTile, type DecodedTile } from './tile-decoder.ts'
import { DOT_RADIUS } from './dots.ts'

/** Painted tiles whose points are kept for picking: a view's worth at two zooms, several times over. */
const KEPT = 64
/** Decodings one of the two layers asked for and the other has not yet: a view's worth, bounded in case it never does. */
const PENDING = 64

interface Dots { z: number; extent: Extent; coords: Float64Array; ids: Float64Array }

export interface CrowdedTilesOptions {
  /** The tile URL template (`{z}`, `{x}`, `{y}`) of the vector tiles. */
  url: string
  tileGrid: TileGrid
  /** Features beyond which a tile is crowded. */
  limit: number
  /** The dots' colour. */
  color: string
}

export class CrowdedTiles {
  /** Features of crowded tiles, drawn without labels (map/styles). */
  readonly crowded = new WeakSet<RenderFeature>()
  readonly #pending = new Map<string, Promise<DecodedTile>>()
  readonly #dots = new Map<string, Dots>()

  constructor(private readonly o: CrowdedTilesOptions) {}

  /** One decoding per tile URL for both layers: the first to ask starts it, the second takes it. */
  #decode(url: string, z: number, extent: Extent): Promise<DecodedTile> {
    const pending = this.#pending.get(url)
    if (pending) {
      this.#pending.delete(url)
      return pending
    }
    const pixelRatio = globalThis.devicePixelRatio || 1
    const size = Math.round(toSize(this.o.tileGrid.getTileSize(z))[0] * pixelRatio)
    const tile = decodeTile(url, extent, { limit: this.o.limit, color: this.o.color, size, pixelRatio }).then((d) => {
      if (d.dots) {
        this.#dots.delete(url)
        this.#dots.set(url, { z, extent, coords: d.dots.coords, ids: d.dots.ids })
        if (this.#dots.size > KEPT) this.#dots.delete(this.#dots.keys().next().value!)
      }
      return d
    })
    this.#pending.set(url, tile)
    if (this.#pending.size > PENDING) this.#pending.delete(this.#pending.keys().next().value!)
    return tile
  }

  /** The `VectorTile` source's `tileLoadFunction`: the tile's features that are not painted. */
  readonly vectorLoad = (tile: Tile, url: string): void => {
    const t = tile as VectorTile<RenderFeature>
    t.setLoader((extent) => {
      this.#decode(url, t.getTileCoord()[0], extent).then((d) => {
        if (d.crowded) for (const f of d.features) this.crowded.add(f)
        t.setFeatures(d.features)
      }, () => t.onError())
    })
  }

  /**
   * The image-tile source's `loader`: the tile's painted points, or null. OpenLayers draws
   * nothing for a tile without data; a transparent stand-in would still be scaled onto the
   * canvas every frame, which in software costs about what a whole tile's image does.
   */
  readonly imageLoad = async (z: number, x: number, y: number): Promise<ImageLike> => {
    const d = await this.#decode(renderXYZTemplate(this.o.url, z, x, y), z, this.o.tileGrid.getTileCoordExtent([z, x, y]))
    return d.dots?.bitmap ?? (null as unknown as ImageLike)
  }

  /**
   * The id of the painted point nearest to `coordinate` (EPSG:3857) within `tolerance` pixels
   * of its dot, among the tiles drawn at `resolution`; undefined if none.
   */
  featureAt(coordinate: number[], resolution: number, tolerance: number): number | undefined {
    const z = this.o.tileGrid.getZForResolution(resolution, 1)
    const reach = (DOT_RADIUS + tolerance) * resolution
    const [x, y] = coordinate as [number, number]
    let best = reach * reach, id: number | undefined
    for (const d of this.#dots.values()) {
      const e = d.extent
      if (d.z !== z || !containsXY([e[0]! - reach, e[1]! - reach, e[2]! + reach, e[3]! + reach], x, y)) continue
      for (let i = 0; i < d.ids.length; i++) {
        const dx = d.coords[2 * i]! - x, dy = d.coords[2 * i + 1]! - y
        const d2 = dx * dx + dy * dy
        if (d2 <= best && !Number.isNaN(d.ids[i]!)) { best = d2; id = d.ids[i] }
      }
    }
    return id
  }

  /** Forgets every tile (the layer's data changed and both sources reload). */
  clear(): void {
    this.#pending.clear()
    this.#dots.clear()
  }
}
