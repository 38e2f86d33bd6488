/**
 * core/identifiers: both spellings in, one out. The spatial-database classes are covered here
 * too, before their folders exist: their names go through the same table.
 */
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../sw/core/error.ts'
import { Identifiers, specMembers, specName } from '../../sw/core/identifiers.ts'

describe('core/identifiers', () => {
  it('reads either spelling as the spec\'s and refuses one member sent in both', () => {
    expect(['postgis_connection', 'postgis_layer', 'mapserver_style', 'vector_layer'].map(specName))
      .toEqual(['spatialdb_connection', 'spatialdb_layer', 'engine_style', 'vector_layer'])
    expect(specMembers({ resource: {}, postgis_layer: { table: 't' } })).toEqual({ resource: {}, spatialdb_layer: { table: 't' } })
    const both = (() => { try { specMembers({ postgis_layer: {}, spatialdb_layer: {} }) } catch (err) { return err } })()
    expect(both).toBeInstanceOf(ApiError)
    expect((both as ApiError).status).toBe(422)
  })

  it('spells answers by its setting: composite objects, texts and MVT prefixes', () => {
    const text = JSON.stringify([{ resource: { id: 1, cls: 'spatialdb_layer', permissions: [{ identity: 'spatialdb_connection' }] },
      resmeta: { items: { note: 'engine_style' } }, spatialdb_layer: { table: 't' }, feature_layer: {} }])
    expect(new Identifiers().resourcesText(text)).toBe(text)
    expect(JSON.parse(new Identifiers('original').resourcesText(text))).toEqual([{ resource: { id: 1, cls: 'postgis_layer',
      permissions: [{ identity: 'postgis_connection' }] }, resmeta: { items: { note: 'engine_style' } }, postgis_layer: { table: 't' }, feature_layer: {} }])
    expect(new Identifiers('original').text('`$.engine_style.xml`, engine_style_2')).toBe('`$.mapserver_style.xml`, engine_style_2')
    expect([new Identifiers().mvtPrefix, new Identifiers('original').mvtPrefix]).toEqual(['svc:', 'ngw:'])
  })
})
