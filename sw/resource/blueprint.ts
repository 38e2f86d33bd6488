/**
 * @module resource/blueprint
 * `resource.blueprint`: the resource classes, scopes and categories, with the original's fields
 * (reference §4: `identity`, `label`, `base_classes`, `interfaces`, `scopes`, `category`,
 * `order`) and one of ours, `outpost_parent_classes`: the classes a resource of each class may
 * live under (the registry's `acceptsParent`), so that a client offers "New" only where a
 * create can succeed. The original keeps that per resource (`resource.children_creatable`),
 * not in the blueprint; the prefix keeps our field clear of any name the original may add.
 */
import type { ClassLookup } from './class.ts'
import { SCOPES } from './permissions.ts'

/** The original's resource categories (`resource/category.py`), in its order. */
export const CATEGORIES = {
  layers_and_styles: { identity: 'layers_and_styles', label: 'Layers and styles', order: 20 },
  maps_and_services: { identity: 'maps_and_services', label: 'Maps and services', order: 40 },
  field_data_collection: { identity: 'field_data_collection', label: 'Field data collection', order: 60 },
  external_connections: { identity: 'external_connections', label: 'External connections', order: 80 },
  miscellaneous: { identity: 'miscellaneous', label: 'Miscellaneous', order: 100 },
} as const

export type ResourceCategory = keyof typeof CATEGORIES

export function blueprint(classes: ClassLookup) {
  const all = classes.list()
  const resources = Object.fromEntries(all.map((k) => [k.identity, {
    identity: k.identity, label: k.label, base_classes: ['resource'], interfaces: k.interfaces, scopes: k.scopes,
    category: k.category, order: k.order,
    outpost_parent_classes: all.filter((p) => k.acceptsParent(p.identity)).map((p) => p.identity),
  }]))
  return { resources, scopes: SCOPES, categories: CATEGORIES }
}
