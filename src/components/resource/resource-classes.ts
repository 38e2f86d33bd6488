/**
 * @module components/resource/resource-classes
 * How the UI names resource classes, and which ones it can create.
 */
export const CLASS_LABELS: Record<string, string> = {
  resource_group: 'Resource group',
  vector_layer: 'Vector layer',
  lookup_table: 'Lookup table',
  raster_layer: 'Raster layer',
  file_bucket: 'File bucket',
  webmap: 'Web map',
  engine_style: 'MapServer style',
  qgis_vector_style: 'QGIS style',
  raster_style: 'Raster style',
}

/** One- or two-letter badges shown in the tree. */
export const CLASS_BADGES: Record<string, string> = {
  resource_group: 'G',
  vector_layer: 'V',
  lookup_table: 'T',
  raster_layer: 'R',
  file_bucket: 'F',
  webmap: 'M',
  engine_style: 'S',
  qgis_vector_style: 'S',
  raster_style: 'S',
}

export const CREATABLE = ['resource_group', 'vector_layer', 'lookup_table'] as const
export type CreatableClass = (typeof CREATABLE)[number]

export const classLabel = (cls: string) => CLASS_LABELS[cls] ?? cls

/** What the details panel offers to do with a resource. */
export type ResourceAction = 'create' | 'rename' | 'move' | 'delete'
