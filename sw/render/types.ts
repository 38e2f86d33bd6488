/**
 * @module render/types
 * The capabilities a resource class offers the render component. A style class says how
 * it draws (`IRenderableStyle`); render/ serves any class that has one and never names a class.
 */
import type { LinkedNeeds } from '../auth/types.ts'
import type { ClassData } from '../resource/class.ts'
import type { FeatureLayers } from '../feature/types.ts'
import type { ResourceRefs } from '../resource/types.ts'
import type { Bbox } from '../geo/geometry.ts'
import type { GeometryKind, VectorStyle } from './style.ts'

export interface RenderableStyle {
  /**
   * `vector`: draws its parent feature layer with `vectorStyle`; `raster`: draws its parent
   * raster layer's pixels; `image`: draws itself (`image`), such as a remote WMS layer.
   */
  kind: 'vector' | 'raster' | 'image'
  /**
   * `image` styles: the pixels of `view` (RGBA, straight alpha, `view.width` × `view.height`),
   * or `undefined` when there is nothing there; throws an `ApiError` when they cannot be had.
   */
  image?(id: number, data: ClassData, view: View, signal?: AbortSignal): Promise<Uint8ClampedArray | undefined>
  /**
   * `image` styles: what else their pixels depend on besides their own data (a WMS layer's
   * connection), as a token that changes with it; cached tiles are kept only while it holds.
   */
  imageVersion?(data: ClassData): Promise<string>
  /** The style model of a resource with class data `data`, for a layer of geometry `geom`. */
  vectorStyle?(data: ClassData, geom: GeometryKind): VectorStyle
  /**
   * The class data of an unsaved style from its member as a create body would send it
   * (`{"xml": …}`), for a preview; throws a 422 naming what is wrong.
   */
  previewData?(member: unknown, geom: GeometryKind): ClassData
  /** The style as a file, by the route's suffix (`qml` → `GET /api/resource/{id}/qml`). */
  files?: Record<string, { contentType: string; body(data: ClassData): string }>
}

/** A layer geometry type (`MULTIPOLYGONZ`) as the kind a style draws. */
export function geometryKindOf(geometryType: string): GeometryKind {
  const t = geometryType.replace(/^MULTI/, '').replace(/Z$/, '')
  return t === 'POINT' ? 'point' : t === 'LINESTRING' ? 'line' : 'polygon'
}

/** A raster layer's stored GeoTIFF (tiled, with overviews). */
export interface RasterSource {
  srs: number
  /** Identifies the stored file: changes whenever the raster does. */
  key: string
  /** Byte length of the file. */
  size: number
  /** Bytes `start` (inclusive) to `end` (exclusive) of the file. */
  read(start: number, end: number): Promise<Uint8Array>
}


/** A resource class as the render component sees it: its capabilities, found through the registry. */
export interface RenderClass {
  identity: string
  interfaces: string[]
  acceptsParent(parentCls: string): boolean
  capabilities: { renderable?: RenderableStyle }
}

/** The registry's side render uses: classes by name, and feature layers by resource id. */
export interface RenderClasses extends FeatureLayers, ResourceRefs, LinkedNeeds {
  /** A raster layer's stored file (its class's `rasterFile` capability); `undefined` for others. */
  rasterFile(id: number): Promise<{ key: string; size: number } | undefined>
  find(cls: string): RenderClass | undefined
  list(): readonly RenderClass[]
}

export interface View {
  /** `[minX, minY, maxX, maxY]` in `srs`. */
  extent: Bbox
  srs: number
  width: number
  height: number
}
