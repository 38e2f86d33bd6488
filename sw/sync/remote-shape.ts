/**
 * @module sync/remote-shape
 * Reads JSON a remote answered, checking its shape at the boundary: a remote that answers
 * `{"not":"an array"}` where a list belongs, `null` where an object belongs or a text where
 * an id belongs is a 502 saying where (`$[2].resource`) and what was expected, instead of a
 * TypeError deep inside the sync.
 */
import type { RemoteClient } from './client.ts'
import { remoteMalformed } from './errors.ts'

export type RemoteObject = Record<string, any> // reason: remote JSON, read member by member

/** A reader of one answer: `url` names the remote, `what` the request. */
export class RemoteShape {
  constructor(readonly url: string, readonly what: string) {}

  #wrong(at: string, expected: string): never {
    throw remoteMalformed(this.url, this.what, `an answer that is not ${expected} at ${at}`)
  }

  list(value: unknown, at = '$'): unknown[] {
    return Array.isArray(value) ? value : this.#wrong(at, 'a list')
  }

  object(value: unknown, at = '$'): RemoteObject {
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as RemoteObject : this.#wrong(at, 'an object')
  }

  /** An object, or `undefined` where the member is absent or null. */
  optionalObject(value: unknown, at: string): RemoteObject | undefined {
    return value === undefined || value === null ? undefined : this.object(value, at)
  }

  int(value: unknown, at: string): number {
    return Number.isSafeInteger(value) ? value as number : this.#wrong(at, 'an integer')
  }

  string(value: unknown, at: string): string {
    return typeof value === 'string' ? value : this.#wrong(at, 'a text')
  }

  /** A list of objects. */
  objects(value: unknown, at = '$'): RemoteObject[] {
    return this.list(value, at).map((v, i) => this.object(v, `${at}[${i}]`))
  }
}

/** A remote layer's schema as linking and syncing read it. */
export interface RemoteLayerSchema {
  /** `feature_layer` of the resource; `undefined` when it is not a feature layer. */
  featureLayer: RemoteObject | undefined
  vectorLayer: RemoteObject | undefined
  /** Its fields, each with an integer `id` and text `keyname` and `datatype`. */
  fields: RemoteObject[]
}

/** Reads remote resource `resource` (`GET /api/resource/{id}`) and checks the members a link uses. */
export async function readRemoteLayer(client: RemoteClient, resource: number): Promise<RemoteLayerSchema> {
  const path = `/api/resource/${resource}`
  const shape = new RemoteShape(client.creds.url, `GET ${path}`)
  const remote = shape.object(await client.get(path))
  const featureLayer = shape.optionalObject(remote.feature_layer, '$.feature_layer')
  const vectorLayer = shape.optionalObject(remote.vector_layer, '$.vector_layer')
  const fields = featureLayer ? shape.objects(featureLayer.fields, '$.feature_layer.fields') : []
  fields.forEach((f, i) => {
    shape.int(f.id, `$.feature_layer.fields[${i}].id`)
    shape.string(f.keyname, `$.feature_layer.fields[${i}].keyname`)
    shape.string(f.datatype, `$.feature_layer.fields[${i}].datatype`)
  })
  return { featureLayer, vectorLayer, fields }
}
