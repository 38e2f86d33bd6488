/**
 * @module ogc/types
 * A WMS service as the OGC component serves it: its layers (the `wmsserver_service` member,
 * reference ngw-services §2.1) and the app services it draws and queries with.
 */
import type { RenderServices } from '../render/env.ts'
import type { DataOutServices } from '../feature/capability.ts'
import type { Principal } from '../auth/types.ts'

/** One layer of a service, as the member stores and answers it. */
export interface WmsLayerConfig {
  keyname: string
  display_name: string
  /** A resource the render path can draw: a style, or any class with the renderable capability. */
  resource_id: number
  /** The largest scale denominator drawn at (zoomed out); `null`: no limit. */
  min_scale_denom: number | null
  /** The smallest scale denominator drawn at (zoomed in); `null`: no limit. */
  max_scale_denom: number | null
}

/** A service to answer: its id, title, description and layers. */
export interface WmsService {
  id: number
  title: string
  /** Plain text for `<Abstract>`. */
  abstract: string
  layers: WmsLayerConfig[]
}

export type WmsServices = RenderServices & DataOutServices

export interface WmsVariables {
  services: WmsServices
  user: Principal
}
