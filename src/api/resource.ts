/**
 * @module api/resource
 * The resource API (spec §4.1, §4.2): read, list children, create, change, delete.
 */
import { request } from './request.ts'

export const ROOT_ID = 0

export const FIELD_DATATYPES = ['INTEGER', 'BIGINT', 'REAL', 'STRING', 'DATE', 'TIME', 'DATETIME', 'BOOLEAN'] as const
export type FieldDatatype = (typeof FIELD_DATATYPES)[number]

export const GEOMETRY_TYPES = ['POINT', 'LINESTRING', 'POLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON',
  'POINTZ', 'LINESTRINGZ', 'POLYGONZ', 'MULTIPOINTZ', 'MULTILINESTRINGZ', 'MULTIPOLYGONZ'] as const
export type GeometryType = (typeof GEOMETRY_TYPES)[number]

export interface Ref { id: number }

/** The `resource` member of a resource object. */
export interface ResourceInfo {
  id: number
  cls: string
  parent: (Ref & { parent?: { id: number | null } }) | null
  keyname: string | null
  display_name: string
  description: string | null
  children: boolean
  creation_date?: string
  owner_user?: Ref
  interfaces?: string[]
}

export interface LayerField {
  id?: number
  keyname: string
  display_name: string
  datatype: FieldDatatype
  label_field?: boolean
  text_search?: boolean
  grid_visibility?: boolean
  /** Values come from this lookup table's keys. */
  lookup_table?: Ref | null
}

/** A full resource object: `resource` plus class members, of which the UI reads a few. */
export interface ResourceItem {
  resource: ResourceInfo
  feature_layer?: { srs: Ref; geometry_type: GeometryType; fields: LayerField[] }
  vector_layer?: { srs: Ref; geometry_type: GeometryType }
  lookup_table?: { items: Record<string, string>; sort?: string; order?: string[] }
  [member: string]: unknown
}

/**
 * One item of a `fields` list in a write: without `id` a new field; with `id` a change of that
 * field (only the members given), or its removal with `delete: true`. Fields not listed stay.
 */
export interface FieldWrite {
  id?: number
  keyname?: string
  display_name?: string
  datatype?: FieldDatatype
  lookup_table?: Ref | null
  delete?: true
}

/** What `create` sends: the `resource` member plus the members of its class (from the class's form). */
export interface CreateBody {
  resource: { cls: string; parent: Ref; display_name: string; keyname?: string | null; description?: string | null }
  [member: string]: unknown
}

export interface ChangeBody {
  resource?: { display_name?: string; keyname?: string | null; description?: string | null; parent?: Ref }
  lookup_table?: { items: Record<string, string> }
  feature_layer?: { fields: FieldWrite[] }
}

/** A resource class as the blueprint describes it. */
export interface BlueprintClass {
  identity: string
  label: string
  interfaces: string[]
  scopes: string[]
  category?: string
  order?: number
  /**
   * The classes a resource of this class may live under (Outpost's addition to the original's
   * blueprint); absent from other servers' blueprints.
   */
  outpost_parent_classes?: string[]
}

export const getResource = (id: number, signal?: AbortSignal) =>
  request<ResourceItem>(`/api/resource/${id}`, { signal })

export const listChildren = (parent: number, signal?: AbortSignal) =>
  request<ResourceItem[]>('/api/resource/', { query: { parent }, signal })

export const createResource = (body: CreateBody) =>
  request<{ id: number; parent: Ref }>('/api/resource/', { method: 'POST', json: body })

export const changeResource = (id: number, body: ChangeBody) =>
  request<unknown>(`/api/resource/${id}`, { method: 'PUT', json: body })

/** Deletes the resource and, recursively, everything under it. */
export const deleteResource = (id: number) =>
  request<unknown>(`/api/resource/${id}`, { method: 'DELETE' })

/** Every resource of class `cls`, unpaged (the `resource` member only). */
export const listOfClass = (cls: string) =>
  request<ResourceItem[]>('/api/resource/search/', { query: { cls, serialization: 'resource' } })

/** Every vector layer (for choosing where to collect features). */
export const listVectorLayers = () => listOfClass('vector_layer')

/** Every resource group (for picking a new parent). */
export const listGroups = () => listOfClass('resource_group')

/** Every lookup table (for linking a field to one). */
export const listLookupTables = () => listOfClass('lookup_table')

/** The resource classes the server knows (`resource.blueprint`). */
export const getBlueprint = () =>
  request<{ resources: Record<string, BlueprintClass>; scopes?: Record<string, BlueprintScope> }>('/api/component/resource/blueprint')

/** A permission scope as the blueprint describes it: its permissions by identity. */
export interface BlueprintScope {
  identity: string
  label: string
  permissions: Record<string, { identity: string; label: string }>
}
