/**
 * @module components/resource/resource-classes
 * How the UI names resource classes: labels from the server's blueprint (a class added to the
 * server later shows with its own label) and badges for the tree.
 */
import { computed } from 'vue'
import { useBlueprint } from '../../composables/useBlueprint.ts'

/** One-letter badges of the classes the UI knows; any other class shows its label's initial. */
const CLASS_BADGES: Record<string, string> = {
  resource_group: 'G',
  vector_layer: 'V',
  lookup_table: 'T',
  raster_layer: 'R',
  file_bucket: 'F',
  webmap: 'M',
  remote_connection: 'C',
  engine_style: 'S',
  qgis_vector_style: 'S',
  raster_style: 'S',
  wmsclient_connection: 'C',
  wmsclient_layer: 'W',
  wmsserver_service: 'W',
}

const labels = computed(() => new Map(useBlueprint().classes.value.map((c) => [c.identity, c.label])))

/** The class's label, or its identity until the blueprint is loaded. */
export const classLabel = (cls: string) => labels.value.get(cls) ?? cls

export const classBadge = (cls: string) => CLASS_BADGES[cls] ?? (labels.value.get(cls) ?? cls).charAt(0).toUpperCase()

/** What the details panel offers to do with a resource. */
export type ResourceAction = 'create' | 'rename' | 'fields' | 'move' | 'delete'
