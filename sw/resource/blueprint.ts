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
import { PERMISSIONS } from '../auth/acl.ts'

const SCOPES = Object.fromEntries(Object.entries(PERMISSIONS).map(([sid, perms]) => [sid, {
  identity: sid, label: sid[0]!.toUpperCase() + sid.slice(1),
  permissions: Object.fromEntries(perms.map((p) => [p, { identity: p, label: p }])) }]))
import { CATEGORIES } from './category.ts'

export function blueprint(classes: ClassLookup) {
  const all = classes.list()
  const resources = Object.fromEntries(all.map((k) => [k.identity, {
    identity: k.identity, label: k.label, base_classes: ['resource'], interfaces: k.interfaces, scopes: k.scopes,
    category: k.category, order: k.order,
    outpost_parent_classes: all.filter((p) => k.acceptsParent(p.identity)).map((p) => p.identity),
  }]))
  return { resources, scopes: SCOPES, categories: CATEGORIES }
}
