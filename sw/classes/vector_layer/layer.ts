/**
 * @module classes/vector_layer/layer
 * An open layer database with what its queries need to know about it.
 */
import type { Database } from '../../store/database.ts'
import type { FlatShape } from '../../geo/flat.ts'

export class Layer {
  /** The geometry `outpost_intersects(geom)` tests against during one query. */
  filter: FlatShape | undefined
  /** The field list the columns were last made for (`fieldsSignature`). */
  signature = ''

  constructor(readonly resourceId: number, readonly db: Database) {}
}
