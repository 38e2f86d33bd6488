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
import type { Identifiers } from '../core/identifiers.ts'

const SCOPES = Object.fromEntries(Object.entries(PERMISSIONS).map(([sid, perms]) => [sid, {
  identity: sid, label: sid[0]!.toUpperCase() + sid.slice(1),
  permissions: Object.fromEntries(perms.map((p) => [p, { identity: p, label: p }])) }]))
import { CATEGORIES } from './category.ts'

/** The blueprint, class names spelled as `names` spells them in answers. */
export function blueprint(classes: ClassLookup, names: Pick<Identifiers, 'name'>) {
  const all = classes.list()
  const resources = Object.fromEntries(all.map((k) => [names.name(k.identity), {
    identity: names.name(k.identity), label: k.label, base_classes: ['resource'], interfaces: k.interfaces, scopes: k.scopes,
    category: k.category, order: k.order,
    outpost_parent_classes: all.filter((p) => k.acceptsParent(p.identity)).map((p) => names.name(p.identity)),
  }]))
  return { resources, scopes: SCOPES, categories: CATEGORIES }
}
