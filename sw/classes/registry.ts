/**
 * @module classes/registry
 * Every resource class the server knows. Adding a class is a folder and one line here.
 */
import type { ResourceClass } from './types.ts'
import { resourceGroup } from './resource_group/index.ts'
import { vectorLayer } from './vector_layer/index.ts'
import { lookupTable } from './lookup_table/index.ts'
import { engineStyle } from './engine_style/index.ts'
import { qgisVectorStyle } from './qgis_vector_style/index.ts'

const CLASSES: ResourceClass[] = [resourceGroup, vectorLayer, lookupTable, engineStyle, qgisVectorStyle]

/** The spec's names for classes the original calls otherwise (accepted on input). */
const ALIASES: Record<string, string> = {
  postgis_connection: 'spatialdb_connection',
  postgis_layer: 'spatialdb_layer',
  mapserver_style: 'engine_style',
}

const BY_ID = new Map(CLASSES.map((c) => [c.identity, c]))

/** The class named `cls` (or its original alias), or `undefined`. */
export function findClass(cls: string): ResourceClass | undefined {
  return BY_ID.get(ALIASES[cls] ?? cls)
}

export function getClass(cls: string): ResourceClass {
  const c = findClass(cls)
  if (!c) throw new Error(`Resource class '${cls}' is not registered.`)
  return c
}

export function listClasses(): readonly ResourceClass[] {
  return CLASSES
}
