/**
 * @module resource/resmeta
 * Resource metadata: `{items: {key: string | number | boolean | null}}` on every resource.
 */
import { validationError } from '../core/error.ts'
import { expectObject } from '../core/validate.ts'

export type ResmetaValue = string | number | boolean | null

/**
 * The items to store for a `resmeta` member, validated; `undefined` when it has none (nothing
 * changes then). As the original does, the map sent is the whole new set: keys it does not
 * name are removed.
 */
export function resmetaInput(member: unknown): Record<string, ResmetaValue> | undefined {
  const m = expectObject(member, '$.resmeta')
  if (m.items === undefined) return undefined
  const items = expectObject(m.items, '$.resmeta.items')
  for (const [k, v] of Object.entries(items)) {
    const ok = v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
    if (!ok) throw validationError(`Expected \`str | int | float | bool | null\` - at \`$.resmeta.items.${k}\``)
  }
  return items as Record<string, ResmetaValue>
}
