/**
 * @module port/features
 * The vector layers' storage in the data port (issue 22 WP-C): their field lists in the main
 * data (`FieldRead/FieldWrite`, part of a unit of work) and their feature tables
 * (`FeatureTables`, one GeoPackage database per layer in the SQLite implementation). The rules
 * (what a field list may say, when versioning starts anew) stay in classes/vector_layer; these
 * only store.
 */
import type { FeatureLayer, Field, FieldType, LayerMeta } from '../feature/types.ts'
import type { Link, Replica } from '../sync/types.ts'
import type { Progress } from '../ingest/progress.ts'
import type { GpkgSource } from '../ingest/vector-convert.ts'
import type { LoaderOptions, PlannedField } from '../ingest/vector-plan.ts'

/** A field as stored (a new one gets its id from the store unless `id` is given). */
export interface NewField {
  id?: number
  keyname: string
  display_name: string
  datatype: FieldType
  label_field: boolean
  grid_visibility: boolean
  text_search: boolean
  lookup_table: number | null
}

/** What a change of one field sets (absent: unchanged). */
export type FieldPatch = Partial<Pick<NewField, 'keyname' | 'display_name' | 'label_field' | 'grid_visibility' | 'text_search' | 'lookup_table'>>

export interface FieldRead {
  /** The fields of each layer of `resourceIds` in one read, in their order (a listing's page); layers without any are left out. */
  list(resourceIds: readonly number[]): Promise<Map<number, Field[]>>
  /** The position a field added to layer `resourceId` takes (after the last). */
  nextIdx(resourceId: number): Promise<number>
  /** The data type of field `id` if it belongs to layer `resourceId`; else undefined. */
  datatype(resourceId: number, id: number): Promise<FieldType | undefined>
  /** A keyname, else a display name, that two fields of layer `resourceId` share. */
  duplicate(resourceId: number): Promise<{ column: 'keyname' | 'display_name'; value: string } | undefined>
}

export interface FieldWrite extends FieldRead {
  insert(resourceId: number, idx: number, f: NewField): Promise<void>
  update(id: number, p: FieldPatch): Promise<void>
  delete(id: number): Promise<void>
  /**
   * Takes `count` consecutive field ids ahead of time and returns the first (an ingest names
   * its columns after them before the fields exist). Never hands out an id twice; an unused
   * reservation only leaves a gap.
   */
  reserveIds(count: number): Promise<number>
}

/**
 * A fingerprint of a field list as a layer's columns depend on it (ids and types): an
 * implementation brings the columns up to the fields again only when it changes.
 */
export const fieldsSignature = (fields: readonly Field[]) => fields.map((f) => `${f.id}:${f.datatype}`).join(',')

/** How an ingest fills a new layer's tables (classes/vector_layer/ingest.ts decides it). */
export interface LoadPlan {
  /** The uploaded file's name, for the messages. */
  file: string
  srs: number
  meta: LayerMeta
  fields: PlannedField[]
  /** The source column that gives the feature ids, if any. */
  fid?: string
  opts: LoaderOptions
}

/** Per layer, the tables that hold its features, their history and its sync bookkeeping. */
export interface FeatureTables {
  /**
   * Layer `meta`'s feature port, its tables made or brought up to `meta` first: columns for
   * its fields, the history restarted (at `now`) when the versioning epoch changed.
   */
  open(meta: LayerMeta, now: () => Date): Promise<FeatureLayer>
  /** As `open`, with the sync bookkeeping of the layer's `link` to a remote layer in the same transactions. */
  replica(meta: LayerMeta, link: Link, now: () => Date): Promise<Replica>
  /**
   * Builds the tables of a new layer (`plan.meta`) from `src` (opened by the app's
   * `GpkgSources`: an implementation may read it its own way, or through `src.batches`, the
   * engine-neutral read) in one write, every feature checked (ingest/feature-check); a refused file
   * writes nothing, and a failure leaves nothing. Until `settle()` (its resource's create
   * committed or was given up) `stored()` leaves the new layer out, so no sweep takes it for
   * an orphan; the caller drops it if the create does not happen.
   */
  load(src: GpkgSource, plan: LoadPlan, p: Progress, s?: AbortSignal): Promise<{ count: number; settle(): void }>
  /** Deletes layer `resourceId`'s tables and the blobs they list (after its resource's delete committed). */
  drop(resourceId: number): Promise<void>
  /** The layers whose tables exist, ingests still building theirs left out. */
  stored(): Promise<number[]>
  /** The newest version of layer `resourceId` if its tables are open; else 0. Synchronous: serialization reads it. */
  latest(resourceId: number): number
}
