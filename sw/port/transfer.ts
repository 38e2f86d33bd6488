/**
 * @module port/transfer
 * What moving a team's data (sw/host/node-migrate.ts, docs/team-server.md) passes from one
 * implementation to the other: tables as plain rows. Names are the tables' meanings as SQLite
 * calls them (`principal`, a layer's `feature`, `feature_history`…); each implementation maps
 * them to its own. Values: numbers, text, null, bytes (`Uint8Array`), geometries as WKB.
 */

/** One table's rows, ordered by its key (parents before children where rows refer to their own table). */
export interface TableRows {
  name: string
  columns: string[]
  /** The primary key's columns: the order rows are compared in. */
  key: string[]
  rows: Record<string, unknown>[]
}

/** The main data's tables in the order their references need. */
export const MAIN_TABLES = ['principal', 'principal_member', 'session', 'login_limit', 'resource', 'resmeta', 'layer_field', 'journal',
  'outpost_request_log', 'upload', 'file_pending', 'acl_state', 'acl_change'] as const

/** The catalogue's tables; its `meta` travels as `CatalogueMeta`. */
export const CATALOGUE_TABLES = ['icon', 'geoservice', 'geoservice_status'] as const
export interface CatalogueMeta { source?: string; defaultIcon?: Uint8Array | null }

/**
 * The sync bookkeeping of a layer linked to a remote one (sqlite/features/replica.ts,
 * postgres/features/replica.ts): the link's state with its pending pull and push, the id maps
 * of features and attachments, conflicts, problems. Every layer has the tables; they hold rows
 * only when it is linked.
 */
export const SYNC_TABLES = ['sync_meta', 'sync_fid', 'sync_aid', 'sync_conflict', 'sync_problem'] as const

/** A layer's tables: features, extensions, history, stored transactions, keyed-write answers, sync bookkeeping. */
export const LAYER_TABLES = ['feature', 'feature_description', 'feature_attachment', 'attachment_file', 'outpost_request_log',
  'feature_version', 'feature_vstate', 'feature_history', 'ext_vstate', 'ext_history', 'feature_transaction', 'feature_transaction_op',
  'feature_transaction_result', ...SYNC_TABLES] as const
export type LayerTable = typeof LAYER_TABLES[number]

/** A layer's tables with ids handed out by a counter: the id column. */
export const LAYER_COUNTERS: Partial<Record<LayerTable, string>> = {
  feature: 'fid', feature_attachment: 'id', attachment_file: 'id', feature_transaction: 'id', sync_conflict: 'id',
}

/** Counters of ids (largest ever handed out, deleted rows included), by table. */
export type Counters = Record<string, number>
