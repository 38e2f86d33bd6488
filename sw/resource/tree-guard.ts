/**
 * @module resource/tree-guard
 * The main database refuses, by triggers (store/schema.ts, migration 3), any statement that
 * would move or delete the root, leave a resource without a parent or make a cycle. This
 * turns those refusals into the original's 422s, so a bug or a path that skipped the service's
 * own checks still answers as the service would, and the tree stays whole.
 */
import { hierarchyError, rootDeleteError } from './errors.ts'

const MESSAGES: Record<string, string> = {
  root_move: 'The root resource cannot be moved.',
  parent_required: 'Every resource other than the root needs a parent.',
  cycle: 'A resource cannot be moved into itself or into one of its descendants.',
}

/** Runs `fn` (statements on the `resource` table); a tree trigger's refusal becomes its 422. */
export function guardTree<T>(fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    const kind = /outpost:tree:(\w+)/.exec(String((err as Error)?.message))?.[1]
    if (kind === 'root_delete') throw rootDeleteError()
    if (kind && MESSAGES[kind]) throw hierarchyError(MESSAGES[kind]!)
    throw err
  }
}
