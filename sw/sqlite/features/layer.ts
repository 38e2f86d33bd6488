/**
 * @module sqlite/features/layer
 * An open layer database with what its queries need to know about it.
 */
import type { Database } from '../../store/database.ts'
import type { FlatShape } from '../../geo/flat.ts'

export class Layer {
  /** The geometry `outpost_intersects(geom)` tests against during one query. */
  filter: FlatShape | undefined
  /** The field list the columns were last made for (`fieldsSignature`). */
  signature = ''
  /** The epoch the history in the database belongs to (0: none; -1: not read yet). */
  epoch = -1
  /** The newest version of a versioned layer (0: not known yet or no versioning). */
  latest = 0

  constructor(readonly resourceId: number, readonly db: Database) {}
}
