/**
 * @module feature/types
 * The feature-layer capability: what a resource class provides so that the feature
 * component serves its features (`vector_layer` does; a `spatialdb_layer` will). The
 * component parses requests into the plain queries and inputs below and serializes the
 * rows it gets back; the class owns storage and the translation into its own queries.
 * Values cross this boundary in their canonical form (`feature/values.ts`): integers as
 * numbers (bigint past 2^53), dates and times as ISO text, booleans as 0/1.
 */
import type { PastRequest } from '../core/idempotency.ts'
import type { Bbox, Geometry } from '../geo/geometry.ts'
import type { HistoryRead, HistoryWrite } from './history-types.ts'
import type { ResourceRef } from '../resource/types.ts'
import type { PendingRefresh } from '../port/pending.ts'

/** NGW's geometry types of a feature layer (vector and PostGIS layers alike). */
export const GEOMETRY_TYPES = ['POINT', 'LINESTRING', 'POLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON',
  'POINTZ', 'LINESTRINGZ', 'POLYGONZ', 'MULTIPOINTZ', 'MULTILINESTRINGZ', 'MULTIPOLYGONZ'] as const

export const FIELD_TYPES = ['INTEGER', 'BIGINT', 'REAL', 'STRING', 'DATE', 'TIME', 'DATETIME', 'BOOLEAN'] as const
export type FieldType = (typeof FIELD_TYPES)[number]

/** A field of a feature layer, as the API serializes it (reference §5.1). */
export interface Field {
  id: number
  keyname: string
  display_name: string
  datatype: FieldType
  typemod: null
  label_field: boolean
  grid_visibility: boolean
  text_search: boolean
  required: boolean
  lookup_table: { id: number } | null
}

/** A value in its canonical form. */
export type FieldValue = number | string | bigint | Uint8Array | null

export interface LayerMeta {
  resourceId: number
  /** EPSG code of the stored geometries. */
  srs: number
  /** NGW's geometry type: `POINT`, `MULTIPOLYGONZ`… */
  geometryType: string
  fields: Field[]
  /**
   * Present when the layer keeps versions (reference §12): its epoch, and who turned versioning
   * on (the author of version 1, as in the original; null when not known).
   */
  versioning?: { epoch: number; userId?: number | null }
}

/** One parsed feature body. `undefined` members are left as they are. */
export interface FeatureInput {
  geom?: Geometry | null
  bbox?: Bbox | null
  /** The fields given, in layer order; inputs that set every field share one array. */
  fields: readonly Field[]
  /** Their values, in the same order. */
  values: FieldValue[]
  description?: string | null
  /** `extensions.attachment`: the feature's whole list (the attachment sub-component applies it). */
  attachment?: Record<string, unknown>[] | null
}

export type FilterOp = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le' | 'like' | 'ilike' | 'in' | 'notin' | 'startswith' | 'isnull'

/**
 * One condition of a filter on a field (`field: null` = the feature id). `value` is canonical
 * for comparisons, a list for `in`/`notin`, the raw pattern text for `like`, `ilike` and
 * `startswith` (LIKE wildcards `%` and `_`), a boolean for `isnull`.
 */
export interface Condition {
  field: Field | null
  op: FilterOp
  value: FieldValue | FieldValue[] | boolean
}

export interface FeatureFilter {
  /** ANDed. */
  conditions: Condition[]
  /** Full-text search over the `text_search` fields (LIKE wildcards; case-sensitive or not). */
  search?: { pattern: string; caseSensitive: boolean }
  /** Features whose geometry shares a point with this one (in the layer's SRS). */
  intersects?: Geometry
  /** Whether any filter was given (`feature_count` reports `filtered_count` then). */
  filtered: boolean
}

export interface FeatureQuery {
  filter?: FeatureFilter
  /** Sort keys; NULLs last ascending and first descending; the fid breaks ties. */
  order?: { field: Field; desc: boolean }[]
  /** `undefined` or negative: no limit. */
  limit?: number
  offset?: number
  /** Only this feature. */
  fid?: number
  /** Read the layer as it was at this version (`?version=`; versioned layers only). */
  version?: number
}

/** Which parts of each feature a listing reads. */
export interface RowShape {
  geom: boolean
  fields: Field[]
  /** The label field's value (`label=true`). */
  label: boolean
  description: boolean
}

export interface FeatureRow {
  fid: number
  /** The version that last changed the feature (versioned layers). */
  vid?: number
  /** `null` without a geometry or when the shape did not ask for it. */
  geom: Geometry | null
  /** Values of `shape.fields`, canonical. */
  values: FieldValue[]
  label?: FieldValue
  description?: string | null
}

/** A stored attachment (reference §6); its bytes are blob `blobId` of the platform store. */
export interface AttachmentRow {
  id: number; fid: number; keyname: string | null; name: string | null; size: number; mime_type: string
  description: string | null; file_meta: string | null; blob_id: string
  /** The id of its current file (the changes feed's `fileobj`). */
  fileobj: number | null
}

/** The writable attributes of an attachment; `undefined` members stay as they are. */
export interface AttachmentFields {
  name?: string | null
  keyname?: string | null
  mime_type?: string
  description?: string | null
}

/** The file of a new or replaced attachment, already in the store. */
export interface AttachmentFile {
  blobId: string
  size: number
  fileMeta: Record<string, unknown>
}

/** A layer's history (reference §12), where its class keeps one. */
export interface FeatureHistory extends HistoryRead {
  /** Attachments at version `version` (point-in-time reads), by fid. */
  attachmentsAt(fids: number[], version: number): Promise<Map<number, AttachmentRow[]>>
}

export interface FeatureHistoryWrite extends FeatureHistory, HistoryWrite {
  /** Brings a deleted feature back with its last values, then applies `input`; `false` when it is not deleted. */
  restore(fid: number, input: FeatureInput): Promise<boolean>
  /**
   * Before many features are updated (a batch, a transaction's commit): their values before
   * this version are kept in one go, which `update` otherwise does one feature at a time.
   * Features that do not exist are skipped.
   */
  beforeUpdates(fids: number[]): Promise<void>
}

/** A feature for drawing: the geometry as stored (a GeoPackage blob), the asked fields canonical. */
export interface BoxRow {
  fid: number
  geom: Uint8Array
  values: FieldValue[]
}

/**
 * Reads inside one consistent snapshot of a layer. Every method is a promise (an implementation
 * may be a remote database); a listing answers a page in one call, never a promise per row.
 */
export interface FeatureRead {
  list(q: FeatureQuery, shape: RowShape): Promise<FeatureRow[]>
  /**
   * Optional fast path for drawing: the features whose bounding box meets `box` (the spatial
   * index's answer, no exact test), in fid order, geometries undecoded. Without it a reader of
   * boxes falls back to `list` with an `intersects` filter.
   */
  inBox?(box: Bbox, fields: readonly Field[]): Promise<BoxRow[]>
  count(filter?: FeatureFilter): Promise<number>
  /** Bounds of the selected geometries in the layer's SRS; `null` when there are none. */
  extent(filter?: FeatureFilter): Promise<Bbox | null>
  exists(fid: number): Promise<boolean>
  /** The feature's geometry: `null` when it has none, `undefined` when there is no such feature. */
  geometry(fid: number): Promise<Geometry | null | undefined>
  /** Attachments by fid, each list in id order; `fids` absent = every feature's. */
  attachments(fids?: number[]): Promise<Map<number, AttachmentRow[]>>
  attachment(fid: number, aid: number): Promise<AttachmentRow | undefined>
  /** Versions, changes and stored transactions; absent when the class keeps no history. */
  readonly history?: FeatureHistory
  /** The recorded answer of the keyed write `key` (`Idempotency-Key`); absent: the class keeps none. */
  pastRequest?(key: string): Promise<PastRequest | undefined>
}

/** One feature of `FeatureWrite.updateMany`. */
export interface FeatureUpdate {
  fid: number
  input: FeatureInput
}

/** Writes inside one durable transaction of a layer: all of them or none. */
export interface FeatureWrite extends FeatureRead {
  /** Queues a new feature (its attachments aside) and returns its fid. */
  create(input: FeatureInput): Promise<number>
  /** `create` for many features in one call (a PATCH's run of new features): their fids, in order. */
  createMany(inputs: readonly FeatureInput[]): Promise<number[]>
  /** `false` when there is no such feature. */
  update(fid: number, input: FeatureInput): Promise<boolean>
  /** `update` of many features in one call (a PATCH's run of changed features, a pulled batch): each one's answer, in order. */
  updateMany(items: readonly FeatureUpdate[]): Promise<boolean[]>
  delete(fid: number): Promise<boolean>
  deleteAll(): Promise<void>
  addAttachment(fid: number, fields: AttachmentFields, file: AttachmentFile): Promise<number>
  /** A new `file` replaces the old one, whose blob becomes an orphan. */
  changeAttachment(row: AttachmentRow, fields: AttachmentFields, file?: AttachmentFile): Promise<void>
  removeAttachment(row: AttachmentRow): Promise<void>
  /** Blobs no longer referenced once the transaction commits; deleted after it. */
  readonly orphanBlobs: readonly string[]
  /** The history's write side (transactions, restores, the version this write makes); absent without history. */
  readonly historyWrite?: FeatureHistoryWrite
  /**
   * Records this write's answer under `key`, in its own transaction; `body` is called when the
   * write has finished (its version known). Present whenever `pastRequest` is.
   */
  recordRequest?(key: string, fingerprint: string, body: () => string): void
}

/** Who makes a write: recorded with the version it creates. */
export interface WriteActor {
  userId?: number
}

/** An open feature layer. */
export interface FeatureLayer {
  readonly meta: LayerMeta
  /**
   * Changes whenever the features may have changed (a write, a reload, another process's commit):
   * what caches key on. Synchronous and cheap (`tokens.current('layer:N')`). Absent: never cache.
   */
  token?(): string
  /** One consistent read; `fn` awaits only `tx`'s methods (the layer's queue is held meanwhile). */
  read<T>(fn: (tx: FeatureRead) => Promise<T>): Promise<T>
  /** One durable transaction: all of `fn`'s writes or none; `fn` awaits only `tx`'s methods. */
  write<T>(fn: (tx: FeatureWrite) => Promise<T>, actor?: WriteActor): Promise<T>
  /** Direct read access to GeoPackage-shaped storage, for the data-out fast paths (below). */
  readonly gpkg?: GpkgStorage
  /**
   * Optional engine fast path for a vector tile (PostGIS: one `ST_AsMVT` statement): the MVT
   * layer `layerName` of the features in tile `t` (XYZ), as mvt/service.ts writes it — feature
   * id = fid, attributes by keyname with the same value kinds, clipped to the tile grown by
   * `padding`, simplified by `simplification` tile units, a tile holding more than `thinAbove`
   * features thinned to one small feature per `grid` × `grid` cell — or no bytes when none is in
   * it. mvt/service.ts keeps the caching; without it tiles come from `gpkg` or the generic reads.
   * `pending`: the request's put-off refresh of the change tokens, which an engine whose own port
   * it is reads in the same statement (and settles); another leaves it to the caller.
   */
  tile?(t: { z: number; x: number; y: number }, opts: { extent: number; padding: number; simplification: number; layerName: string;
    thinAbove: number; grid: number }, pending?: PendingRefresh): Promise<Uint8Array>
}

/** The capability a resource class provides (`capabilities.featureLayer`). */
export interface FeatureLayerProvider {
  /** Opens the features of resource `ref` (the registry checked that it is of this class). */
  open(ref: ResourceRef): Promise<FeatureLayer | undefined>
}

/** How the feature component finds the layer of a resource, whatever its class. */
export interface FeatureLayers {
  /** `undefined` when there is no such resource or its class has no feature-layer capability. */
  featureLayer(id: number): Promise<FeatureLayer | undefined>
  /** The extent of a layer that is no feature layer (a raster); `undefined` when there is none. */
  layerExtent?(id: number): Promise<{ bbox: Bbox | null; srs: number } | undefined>
}

/** A class whose resources have an extent without features (a raster layer). */
export interface BboxLayerProvider {
  /** The box in the layer's `srs` (the registry checked that `ref` is of this class). */
  extent(ref: ResourceRef): Promise<{ bbox: Bbox | null; srs: number } | undefined>
}

// ---- optional: GeoPackage storage for the data-out fast paths ----
// A class whose features live in a GeoPackage-shaped SQLite table offers read access to it
// (`FeatureLayer.gpkg`), so vector tiles are cut from its R*Tree and a GeoPackage export is a
// copy; the data-out components fall back to the generic reads for a class without it. The
// SQL stays with the storage: the components call the methods below and hold no connection.

/**
 * Rows of `fid`, `geom` (a GeoPackage blob) and the asked fields' columns, read one at a time
 * in a hot loop without an object per row (the storage's `RowReader`). `type` answers SQLite's
 * type codes (row-values.ts). Always `finalize`d, also after an error.
 */
export interface RowCursor {
  step(): boolean
  type(i: number): number
  number(i: number): number
  int(i: number): number
  text(i: number): string
  /** A view valid until the next `step`: copy it to keep it. */
  blobView(i: number): Uint8Array | null
  finalize(): void
}

/** The table and its R*Tree, valid inside one `GpkgStorage.read` (synchronous: nothing waits inside). */
export interface GpkgTables {
  /** Identity of the connection: a reopened database is another one (what was read of the old one is stale). */
  readonly connection: object
  /**
   * Node `no` of the R*Tree (1 is the root) as SQLite stores it: u16 depth (root only), u16 cell
   * count, cells of i64 id + 4 × f32 (minX maxX minY maxY), big-endian (sqlite/rtree.ts).
   */
  rtreeNode(no: number): Uint8Array | undefined
  /** Index entries whose box meets `box` (layer SRS). */
  countInBox(box: Bbox): number
  featureCount(): number
  /** The features whose index box meets `box`, in the index's order (`filter`'s conditions ANDed). */
  boxRows(box: Bbox, fields: readonly Field[], filter?: FeatureFilter): RowCursor
  /** The features after fid `after`, by ascending fid. */
  scan(after: number, fields: readonly Field[]): RowCursor
  /** The features among `fids` that exist. */
  byFids(fids: readonly number[], fields: readonly Field[]): RowCursor
  /**
   * The features inserted, updated or deleted since the last call, whoever wrote them: fid and
   * geometry before the change (`null` for an insert). The first call on a connection starts
   * noting and answers nothing.
   */
  takeChanges(): { fid: number; old: Uint8Array | null }[]
  /**
   * Copies the selection `opts.filter` into `out`'s table (created here, with the GeoPackage's
   * own tables, spatial index and metadata rows): by SQL, the R*Tree's pages as they are when
   * the output has exactly the layer's features, ids and boxes.
   */
  exportTo(out: GpkgOutput, opts: GpkgCopyOptions): void
}

/** A GeoPackage file being written (`GpkgFiles.create`): an SQLite database a storage may attach by `uri`. */
export interface GpkgOutput {
  readonly uri: string
  /** Its feature table's name. */
  readonly table: string
}

/** What a GeoPackage file's feature table holds: the copy's options and the layer's geometry type. */
export interface GpkgSpec extends GpkgCopyOptions { geometryType: string }

/** A finished GeoPackage held in memory until it is streamed or closed. */
export interface GpkgFile {
  readonly size: number
  /** The file's bytes as a stream of chunks; the memory is freed once it ends or is cancelled. */
  stream(): ReadableStream<Uint8Array>
  close(): void
}

/** An empty GeoPackage file being filled: by a storage's `exportTo`, or from features by `writeRows`. */
export interface GpkgWriter extends GpkgOutput {
  /** Writes the rows (pages in fid order, geometries in `spec.srs`), then the index and metadata. */
  writeRows(spec: GpkgSpec, pages: AsyncIterable<{ fid: number; geom: Geometry | null; values: (string | number | boolean | null)[] }[]>): Promise<void>
  /** The file, finished. */
  file(): GpkgFile
  close(): void
}

/**
 * The GeoPackage file writer (exports, and GDAL's input for the other formats). A GeoPackage is
 * an SQLite file, so its writer is SQLite's (sw/sqlite/gpkg-file/writer.ts) on every host,
 * whichever implementation of the data port holds the layers.
 */
export interface GpkgFiles {
  /** A new, empty file whose feature table will be `table`. */
  create(table: string): Promise<GpkgWriter>
}

/** What an export copies: the columns (output names, in order), an extra column of the fid, the output SRS, the selection. */
export interface GpkgCopyOptions {
  columns: readonly { name: string; field: Field }[]
  fidField: string | undefined
  srs: number
  filter: FeatureFilter
}

export interface GpkgStorage {
  /** Changes whenever the content may have changed (a saved write, a reload): what caches key on (compare with ===). */
  token(): string
  /**
   * Runs `fn` inside one read of the layer's database, the intersects test of `filter` (if
   * any) active for the conditions `where` gives. `fn` is synchronous: nothing waits inside.
   */
  read<T>(fn: (t: GpkgTables) => T, filter?: FeatureFilter): Promise<T>
}

// ---- the synchronous shape of the ports ----
// The SQLite implementation answers each call from one synchronous statement run; it keeps
// that shape (no promise per call inside it) and `classes/vector_layer/feature-layer.ts` wraps
// it into the promise-returning ports above, one await per call.

/** `F` with its promise unwrapped (left as it is when it is no promise-returning function). */
type Unpromised<F> = F extends (...a: infer A) => Promise<infer R> ? (...a: A) => R : F
/** `T` with each promise-returning method made synchronous. */
export type Synchronous<T> = { [K in keyof T]: Unpromised<T[K]> }

export type FeatureHistorySync = Synchronous<FeatureHistory>
export type FeatureHistoryWriteSync = Synchronous<FeatureHistoryWrite>
export type FeatureReadSync = Omit<Synchronous<FeatureRead>, 'history'> & { readonly history?: FeatureHistorySync }
/**
 * Without `createMany` and `updateMany`: the facade makes them of `create` and `update` calls in
 * one synchronous loop (a create only queues its feature), one promise for the whole batch.
 */
export type FeatureWriteSync = Omit<Synchronous<FeatureWrite>, 'history' | 'historyWrite' | 'createMany' | 'updateMany'>
  & { readonly history?: FeatureHistorySync; readonly historyWrite?: FeatureHistoryWriteSync }
