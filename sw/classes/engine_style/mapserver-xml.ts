/**
 * @module classes/engine_style/mapserver-xml
 * MapServer's XML mapfile dialect (the original's `mapserver_style.xml`: `<map><layer>
 * <class><expression/><style/><label/></class></layer></map>`, tags are mapfile keywords)
 * read into the style model. A feature takes the first class whose expression matches.
 */
import { parseExpression, ExprError } from '../../render/expression-parse.ts'
import type { Expr } from '../../render/expression.ts'
import { child, childrenOf, parseXml, textOf, XmlError, type XmlNode } from '../../render/xml.ts'
import {
  rgba, StyleError, type GeometryKind, type LabelPosition, type LabelStyle, type MarkerShape, type ScaleRange,
  type Stroke, type StyleRule, type Symbolizer, type VectorStyle,
} from '../../render/style.ts'

/** MapServer computes scales at 72 dpi. */
const DPI = 72

/**
 * MapServer's own bounds (`MS_MAXVECTORPOINTS`, `MS_MAXPATTERNLENGTH`): a symbol of 500,000
 * points overflowed the stack when drawn, so larger ones are refused when the style is saved.
 */
export const SYMBOL_MAX_POINTS = 100
export const PATTERN_MAX_LENGTH = 10

const SHAPES: Record<string, MarkerShape> = {
  circle: 'circle', ellipse: 'circle', point: 'circle', square: 'square', rectangle: 'square', box: 'square',
  triangle: 'triangle', 'triangle-equilateral': 'triangle', diamond: 'diamond', star: 'star', pentagon: 'pentagon',
  hexagon: 'hexagon', cross: 'cross', plus: 'cross', xcross: 'x', x: 'x', line: 'line', arrow: 'arrow',
}

interface SymbolDef { shape: MarkerShape; filled: boolean; hatch: boolean }

function num(n: XmlNode, name: string, where: string): number | undefined {
  const t = textOf(n, name)
  if (t === undefined || t === '') return undefined
  const v = Number(t)
  if (!Number.isFinite(v)) throw new StyleError(`<${name}> must be a number, got '${t}'`, where)
  return v
}

/** The numbers in child `name` (`<points>1 2 3 4</points>`), at most `max` of them. */
function numbers(n: XmlNode, name: string, max: number, where: string): number[] {
  const words = (textOf(n, name) ?? '').split(/\s+/).filter(Boolean)
  if (words.length > max) throw new StyleError(`<${name}> has ${words.length} numbers; at most ${max} are allowed`, where)
  const out = words.map(Number)
  if (out.some((v) => !Number.isFinite(v))) throw new StyleError(`<${name}> must hold numbers`, where)
  return out
}

function color(n: XmlNode | undefined, where: string, alpha = 1): string | undefined {
  if (!n) return undefined
  const t = n.text.trim()
  if (t.startsWith('#')) {
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})?$/i.exec(t)
    if (!m) throw new StyleError(`Invalid colour '${t}'`, where)
    return rgba(parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16), (m[4] ? parseInt(m[4], 16) / 255 : 1) * alpha)
  }
  const c = ['red', 'green', 'blue'].map((k) => Number(n.attrs[k]))
  if (c.some((v) => !Number.isFinite(v) || v < -1 || v > 255)) {
    throw new StyleError(`<${n.name}> needs red, green and blue from 0 to 255`, where)
  }
  // -1 -1 -1 is MapServer's "no colour".
  if (c[0] === -1) return undefined
  const a = n.attrs.alpha !== undefined ? Number(n.attrs.alpha) / 255 : 1
  return rgba(c[0]!, c[1]!, c[2]!, a * alpha)
}

function scale(n: XmlNode, where: string): ScaleRange {
  return { minScale: num(n, 'minscaledenom', where), maxScale: num(n, 'maxscaledenom', where) }
}

function expression(src: string, classitem: string | undefined, where: string): Expr | undefined {
  const s = src.trim()
  const item: Expr = { k: 'field', name: classitem ?? '' }
  try {
    if (s.startsWith('(')) return parseExpression(s, 'mapserver')
    if (s.startsWith('/')) {
      const e = parseExpression(s, 'mapserver')
      if (e.k !== 'regex') throw new ExprError('Expected a regular expression', 1)
      if (!classitem) throw new StyleError('A regular expression needs <classitem> on the layer', where)
      return { k: 'regex', a: item, re: e.re }
    }
  } catch (err) {
    if (err instanceof ExprError) throw new StyleError(`Invalid expression: ${err.message}`, where)
    throw err
  }
  if (!classitem) throw new StyleError('A string expression needs <classitem> on the layer', where)
  if (s.startsWith('{') && s.endsWith('}')) {
    return { k: 'in', a: item, list: s.slice(1, -1).split(',').map((v) => ({ k: 'lit', v })) }
  }
  // A mapfile string: quotes are the mapfile's, not part of the value.
  const m = /^(["'])(.*)\1(i?)$/s.exec(s)
  // Backslash escapes as the mapfile lexer reads them (`"say \"hi\""`).
  const value = m ? m[2]!.replace(/\\(.)/g, '$1') : s
  return { k: 'cmp', op: '=', a: item, b: { k: 'lit', v: value }, ci: m?.[3] === 'i' }
}

function labelText(n: XmlNode, labelitem: string | undefined, where: string): Expr {
  const t = textOf(n, 'text')
  if (t === undefined || t === '') {
    if (!labelitem) throw new StyleError('A label needs <text> or <labelitem> on the layer', where)
    return { k: 'field', name: labelitem }
  }
  try {
    if (t.startsWith('(')) return parseExpression(t, 'mapserver')
    const m = /^(["'])(.*)\1$/s.exec(t)
    return parseExpression(JSON.stringify(m ? m[2] : t), 'mapserver')
  } catch (err) {
    if (err instanceof ExprError) throw new StyleError(`Invalid label text: ${err.message}`, where)
    throw err
  }
}

function label(n: XmlNode, labelitem: string | undefined, where: string): LabelStyle {
  const outlineWidth = num(n, 'outlinewidth', where) ?? 1
  const halo = color(child(n, 'outlinecolor'), where)
  const pos = (textOf(n, 'position') ?? 'cc').toLowerCase()
  const offset = child(n, 'offset')
  return {
    text: labelText(n, labelitem, where),
    // MapServer gives TrueType sizes in points and rasterises glyphs at 96 dpi.
    size: ((num(n, 'size', where) ?? 10) * 96) / 72,
    color: color(child(n, 'color'), where) ?? rgba(0, 0, 0),
    bold: /bold/i.test(textOf(n, 'font') ?? ''),
    italic: /italic/i.test(textOf(n, 'font') ?? ''),
    halo: halo ? { color: halo, width: outlineWidth } : undefined,
    position: (/^[ulc][lcr]$/.test(pos) ? pos : 'cc') as LabelPosition,
    offset: [Number(offset?.attrs.x ?? 0) || 0, Number(offset?.attrs.y ?? 0) || 0],
    ...scale(n, where),
  }
}

function symbolDefs(map: XmlNode, where: string): Map<string, SymbolDef> {
  const defs = new Map<string, SymbolDef>()
  childrenOf(map, 'symbol').forEach((s, i) => {
    const name = textOf(s, 'name')
    if (!name) throw new StyleError('A <symbol> needs a <name>', `${where}/symbol[${i + 1}]`)
    const type = (textOf(s, 'type') ?? 'vector').toLowerCase()
    const filled = (textOf(s, 'filled') ?? 'false').toLowerCase() === 'true'
    const nums = numbers(s, 'points', 2 * SYMBOL_MAX_POINTS, `${where}/symbol[${i + 1}]`)
    let shape: MarkerShape = SHAPES[name.toLowerCase()] ?? 'square'
    if (type === 'ellipse') shape = 'circle'
    else if (type === 'vector' && nums.length >= 4) {
      const points: number[][] = []
      for (let k = 0; k + 1 < nums.length; k += 2) points.push([nums[k]!, nums[k + 1]!])
      shape = { points, filled }
    }
    defs.set(name.toLowerCase(), { shape, filled: filled || type === 'ellipse', hatch: type === 'hatch' })
  })
  return defs
}

function symbolizer(n: XmlNode, geom: GeometryKind, defs: Map<string, SymbolDef>, where: string): Symbolizer | undefined {
  const opacity = (num(n, 'opacity', where) ?? 100) / 100
  const fill = color(child(n, 'color'), where, opacity)
  const outline = color(child(n, 'outlinecolor'), where, opacity)
  const width = num(n, 'width', where) ?? 1
  const outlineWidth = num(n, 'outlinewidth', where)
  const pattern = numbers(n, 'pattern', PATTERN_MAX_LENGTH, where)
  const stroke = (c: string, w: number): Stroke => ({ color: c, width: w, dash: pattern.length ? pattern : undefined,
    cap: (textOf(n, 'linecap') ?? 'round').toLowerCase() as Stroke['cap'],
    join: (textOf(n, 'linejoin') ?? 'round').toLowerCase() as Stroke['join'] })
  const symName = textOf(n, 'symbol')?.toLowerCase().replace(/^std:/, '')
  const def = symName === undefined ? undefined : defs.get(symName) ?? (SHAPES[symName] || symName === 'hatch'
    ? { shape: SHAPES[symName] ?? 'line', filled: true, hatch: symName === 'hatch' } : undefined)
  if (symName !== undefined && !def) throw new StyleError(`Unknown symbol '${symName}'`, where)
  const range = scale(n, where)
  if (def?.hatch && geom === 'polygon') {
    const angle = num(n, 'angle', where) ?? 0
    return { kind: 'fill', hatch: { angles: [angle], gap: num(n, 'size', where) ?? 10, width }, color: fill, ...range }
  }
  if (geom === 'point' || (def && geom !== 'polygon' && !def.hatch && num(n, 'gap', where) !== undefined)) {
    const size = num(n, 'size', where) ?? (def ? 6 : 1)
    const shapeFilled = def ? def.filled : true
    return { kind: 'marker', shape: def?.shape ?? 'square', size,
      fill: shapeFilled ? fill : undefined,
      stroke: outline ? stroke(outline, outlineWidth ?? width) : !shapeFilled && fill ? stroke(fill, width) : undefined,
      angle: Number(textOf(n, 'angle')) || 0, ...range }
  }
  if (geom === 'line') {
    if (!fill && !outline) return undefined
    return { kind: 'line', stroke: stroke(fill ?? outline!, width),
      casing: fill && outline ? { color: outline, width: width + 2 * (outlineWidth ?? 1) } : undefined, ...range }
  }
  if (!fill && !outline) return undefined
  return { kind: 'fill', color: fill, outline: outline ? stroke(outline, width) : undefined, ...range }
}

/** Reads the XML style for a layer of geometry `geom`; throws `StyleError` naming the place. */
export function parseMapserverXml(xml: string, geom: GeometryKind): VectorStyle {
  let root: XmlNode
  try {
    root = parseXml(xml)
  } catch (err) {
    if (err instanceof XmlError) throw new StyleError(`XML is not well-formed: ${err.message}`, 'xml')
    throw err
  }
  if (root.name !== 'map') throw new StyleError(`The root element must be <map>, got <${root.name}>`, 'xml')
  const layers = childrenOf(root, 'layer')
  if (layers.length !== 1) throw new StyleError('The style must have exactly one <layer>', '/map')
  const layer = layers[0]!
  const defs = symbolDefs(root, '/map')
  const classitem = textOf(layer, 'classitem')
  const labelitem = textOf(layer, 'labelitem')
  const layerOpacity = (num(layer, 'opacity', '/map/layer') ?? 100) / 100
  const layerScale = scale(layer, '/map/layer')
  const rules: StyleRule[] = childrenOf(layer, 'class').map((c, i) => {
    const where = `/map/layer/class[${i + 1}]`
    const expr = textOf(c, 'expression')
    const styles = childrenOf(c, 'style').map((s, j) => symbolizer(s, geom, defs, `${where}/style[${j + 1}]`))
    const labels = childrenOf(c, 'label')
    return {
      title: textOf(c, 'title') ?? textOf(c, 'name') ?? (expr ? expr : ''),
      filter: expr === undefined ? undefined : expression(expr, classitem, `${where}/expression`),
      symbolizers: styles.filter((s): s is Symbolizer => !!s),
      label: labels[0] ? label(labels[0], labelitem, `${where}/label`) : undefined,
      enabled: true,
      minScale: num(c, 'minscaledenom', where) ?? layerScale.minScale,
      maxScale: num(c, 'maxscaledenom', where) ?? layerScale.maxScale,
    }
  })
  if (!rules.length) throw new StyleError('The layer must have at least one <class>', '/map/layer')
  return { kind: 'vector', rules, firstMatch: true, labels: [], opacity: layerOpacity, dpi: DPI }
}
