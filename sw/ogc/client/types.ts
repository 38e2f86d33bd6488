/**
 * @module ogc/client/types
 * What the WMS client classes offer each other through the registry: a `wmsclient_layer`
 * finds its connection (URL, version, login, stored capabilities) without naming its class.
 */
import type { ResourceRef } from '../../resource/types.ts'
import type { Capcache } from './capabilities.ts'
import type { WmsConnection } from './request.ts'

/** A connection as its layers use it: the password decrypted, the capabilities as stored. */
export interface WmsConnectionState extends WmsConnection {
  capcache: Capcache | null
}

/** The capability of `wmsclient_connection`. */
export interface WmsConnectionProvider {
  connection(ref: ResourceRef): Promise<WmsConnectionState>
}

/** The registry's side of it. */
export interface WmsConnections {
  /** Connection `id`, or `undefined` when it is none (gone, or of another class). */
  wmsConnection(id: number): Promise<WmsConnectionState | undefined>
}
