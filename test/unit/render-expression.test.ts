import { describe, expect, it } from 'vitest'
import { evaluate, fieldsOf, type Value } from '../../sw/render/expression.ts'
import { ExprError, parseExpression } from '../../sw/render/expression-parse.ts'
import { FilterError, parseNgwFilter } from '../../sw/render/ngw-filter.ts'

const feature = (values: Record<string, Value>, fid = 7) => ({ fid, get: (k: string) => values[k] ?? null })
const F = feature({ num: 20, name: 'Main Road', type: 'city', empty: '', none: null })

describe('render/expression-parse', () => {
  describe('mapserver', () => {
    it.each([
      ['([num] gt 18)', true],
      ['(([num] gt 18) and ([num] le 26.1))', true],
      ['([num] lt 5 or [num] eq 20)', true],
      ['("[type]" = "city")', true],
      ['("[type]" != "city")', false],
      ['("[name]" =* "main road")', true],
      ['("[type]" in "town,city")', true],
      ['([name] ~ /^Main/)', true],
      ['([name] ~* "^main")', true],
      ['(length("[name]") = 9)', true],
      ['(not ([num] > 100))', true],
      ['([num] + 5 >= 25 && [num] * 2 == 40)', true],
      ['("[none]" = "")', true],
    ])('%s → %s', (src, expected) => {
      expect(evaluate(parseExpression(src, 'mapserver'), F)).toBe(expected)
    })
  })

  describe('qgis', () => {
    it.each([
      ['"num" > 18 AND "type" = \'city\'', true],
      ['"type" IN (\'town\', \'city\')', true],
      ['"type" NOT IN (\'town\', \'city\')', false],
      ['"name" LIKE \'Main%\'', true],
      ['"name" ILIKE \'main%\'', true],
      ['"none" IS NULL', true],
      ['"name" IS NOT NULL', true],
      ['upper("type") || \'-\' || "num" = \'CITY-20\'', true],
      ['num % 3 = 2 OR FALSE', true],
      ['$id = 7', true],
      ['coalesce("none", \'x\') = \'x\'', true],
      ['NOT ("num" <> 20)', true],
    ])('%s → %s', (src, expected) => {
      expect(evaluate(parseExpression(src, 'qgis'), F)).toBe(expected)
    })
  })

  it.each([
    ['([num] gt )', 'mapserver', 11],
    ['"a" = \'x', 'qgis', 7],
    ['"a" = @layer', 'qgis', 7],
    ['nosuchfn(1)', 'qgis', 1],
    ['[num', 'mapserver', 1],
  ] as const)('reports where %s fails (%s)', (src, dialect, column) => {
    try {
      parseExpression(src, dialect)
      expect.unreachable()
    } catch (err) {
      expect(err).toBeInstanceOf(ExprError)
      expect((err as ExprError).column).toBe(column)
    }
  })

  it('lists the fields an expression reads', () => {
    expect([...fieldsOf(parseExpression('("[a]" = "x") and ([b] > length("[c]"))', 'mapserver'))].sort()).toEqual(['a', 'b', 'c'])
  })
})

describe('render/ngw-filter', () => {
  it.each([
    [['all', ['==', ['get', 'type'], 'city'], ['>=', ['get', 'num'], 10]], true],
    [['any', ['==', ['get', 'type'], 'town'], ['<', ['get', 'num'], 10]], false],
    [['in', ['get', 'type'], 'town', 'city'], true],
    [['!in', ['get', 'type'], ['town', 'city']], false],
    [['is_null', ['get', 'none']], true],
    [['!is_null', ['get', 'name']], true],
    [['ilike', ['get', 'name'], 'main%'], true],
    [['==', ['fid'], 7], true],
    [['all'], true],
  ])('%j → %s', (f, expected) => {
    expect(evaluate(parseNgwFilter(JSON.stringify(f)), F)).toBe(expected)
  })

  it.each(['nope', '["frobnicate", 1]', '["==", ["get"], 1]', '[1, 2]', '["==", {"a": 1}, 1]'])('rejects %s', (text) => {
    expect(() => parseNgwFilter(text)).toThrow(FilterError)
  })
})
