import { describe, expect, it } from 'vitest'
import { classesFor, defaultForm, formToXml, xmlToForm } from '../../src/style/style-form.ts'
import { parseMapserverXml } from '../../sw/classes/engine_style/mapserver-xml.ts'
import { evaluate } from '../../sw/render/expression.ts'

describe('style/style-form', () => {
  it('writes XML the server reads: a class per value, "Other" last, labels with a halo', () => {
    const form = { ...defaultForm('point', 3), classify: { field: 'kind', classes: classesFor(['b', 'a', null, 'a', 'x"y']) },
      label: { field: 'name', size: 11, color: '#102030', halo: '#ffffff' }, opacity: 60 }
    const style = parseMapserverXml(formToXml(form), 'point')
    expect(style.rules.map((r) => r.title)).toEqual(['a', 'b', 'x"y', 'Other'])
    const kindOf = (kind: string) => style.rules.findIndex((r) => !r.filter || evaluate(r.filter, { fid: 1, get: (k) => (k === 'kind' ? kind : null) }))
    expect([kindOf('a'), kindOf('b'), kindOf('x"y'), kindOf('zzz')]).toEqual([0, 1, 2, 3])
    const marker = style.rules[0]!.symbolizers[0]!
    expect(marker).toMatchObject({ kind: 'marker', shape: 'circle', size: 8, fill: 'rgba(141,211,199,0.6)' })
    expect(style.rules[0]!.label).toMatchObject({ color: 'rgba(16,32,48,1)', halo: { color: 'rgba(255,255,255,1)', width: 2 }, position: 'ur' })
  })

  it('reads its own form back from the XML, and nothing from XML written by hand', () => {
    const form = { ...defaultForm('polygon', 1), width: 2.5 }
    expect(xmlToForm(formToXml(form))).toEqual(form)
    expect(xmlToForm('<map><layer><class><style><color red="1" green="2" blue="3"/></style></class></layer></map>')).toBeNull()
  })
})
