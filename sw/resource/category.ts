/**
 * @module resource/category
 * The blueprint's resource categories: the original's five (`resource/category.py`); each class names one.
 */

/** The original's resource categories (`resource/category.py`), in its order. */
export const CATEGORIES = {
  layers_and_styles: { identity: 'layers_and_styles', label: 'Layers and styles', order: 20 },
  maps_and_services: { identity: 'maps_and_services', label: 'Maps and services', order: 40 },
  field_data_collection: { identity: 'field_data_collection', label: 'Field data collection', order: 60 },
  external_connections: { identity: 'external_connections', label: 'External connections', order: 80 },
  miscellaneous: { identity: 'miscellaneous', label: 'Miscellaneous', order: 100 },
} as const

export type ResourceCategory = keyof typeof CATEGORIES
