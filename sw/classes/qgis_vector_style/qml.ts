/**
 * @module classes/qgis_vector_style/qml
 * A QGIS layer style file (`.qml`) read into the style model: the single symbol,
 * categorized, graduated and rule-based renderers, simple symbols, and labels (QGIS 3's
 * `<labeling>` and the 2.x `labeling/*` custom properties). Filters use QGIS's expression
 * language; every matching rule draws, as in QGIS.
 */
import { parseExpression, ExprError } from '../../render/expression-parse.ts'
import type { Expr } from '../../render/expression.ts'
import { child, childrenOf, parseXml, textOf, XmlError, type XmlNode } from '../../render/xml.ts'
import { StyleError, type LabelPosition, type LabelStyle, type ScaleRange, type StyleRule, type Symbolizer, type VectorStyle } from '../../render/style.ts'
import { qgisColor, QGIS_DPI, symbolizersOf, toPx } from './qml-symbols.ts'

function expr(src: string, where: string): Expr {
  try {
    return parseExpression(src, 'qgis')
  } catch (err) {
    if (err instanceof ExprError) throw new StyleError(`Invalid expression '${src}': ${err.message}`, where)
    throw err
  }
}

/** A renderer's `attr`: a field name, or an expression when it is not a plain name. */
function attrExpr(attr: string | undefined, where: string): Expr {
  if (!attr) throw new StyleError('The renderer has no attribute', where)
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(attr) ? { k: 'field', name: attr } : expr(attr, where)
}

/** Scale bounds from two denominators in either order (QGIS swapped their names over versions); 0 is none. */
function range(a: string | undefined, b: string | undefined): ScaleRange {
  const v = [Number(a), Number(b)].filter((x) => Number.isFinite(x) && x > 0).sort((x, y) => x - y)
  if (v.length === 2) return { minScale: v[0], maxScale: v[1] }
  if (v.length === 1) return Number(a) > 0 ? { minScale: v[0] } : { maxScale: v[0] }
  return {}
}

/** Where both ranges hold. */
function intersect(a: ScaleRange, b: ScaleRange): ScaleRange {
  const lo = Math.max(a.minScale ?? 0, b.minScale ?? 0), hi = Math.min(a.maxScale ?? Infinity, b.maxScale ?? Infinity)
  return { minScale: lo > 0 ? lo : undefined, maxScale: hi < Infinity ? hi : undefined }
}

function symbolsOf(renderer: XmlNode, where: string): Map<string, Symbolizer[]> {
  const out = new Map<string, Symbolizer[]>()
  const list = child(renderer, 'symbols')
  for (const s of list ? childrenOf(list, 'symbol') : []) out.set(s.attrs.name ?? '', symbolizersOf(s, `${where}/symbols/symbol[@name=${s.attrs.name}]`))
  return out
}

function literal(v: string, type: string | undefined): Expr {
  if (type === 'NULL') return { k: 'lit', v: null }
  return { k: 'lit', v: type === 'string' || v === '' || !Number.isFinite(Number(v)) ? v : Number(v) }
}

function rules(renderer: XmlNode, where: string): { rules: StyleRule[]; firstMatch: boolean } {
  const type = renderer.attrs.type
  const symbols = symbolsOf(renderer, where)
  const sym = (name: string | undefined, at: string) => {
    const s = symbols.get(name ?? '')
    if (!s) throw new StyleError(`Symbol '${name}' is not defined`, at)
    return s
  }
  switch (type) {
    case 'singleSymbol':
      return { firstMatch: true, rules: [{ title: '', symbolizers: sym('0', where), enabled: true }] }
    case 'categorizedSymbol': {
      const a = attrExpr(renderer.attrs.attr, where)
      const cats = child(renderer, 'categories')
      return { firstMatch: true, rules: (cats ? childrenOf(cats, 'category') : []).map((c, i) => {
        const at = `${where}/categories/category[${i + 1}]`
        const vals = childrenOf(c, 'val')
        const isElse = !vals.length && (c.attrs.value ?? '') === '' && c.attrs.type !== 'NULL'
        const list = vals.length ? vals.map((v) => literal(v.attrs.value ?? '', v.attrs.type)) : [literal(c.attrs.value ?? '', c.attrs.type)]
        const filter: Expr | undefined = isElse ? undefined
          : list.length === 1 && list[0]!.k === 'lit' && list[0]!.v === null ? { k: 'isnull', a } : { k: 'in', a, list }
        return { title: c.attrs.label ?? c.attrs.value ?? '', filter, isElse, symbolizers: sym(c.attrs.symbol, at), enabled: c.attrs.render !== 'false' }
      }) }
    }
    case 'graduatedSymbol': {
      const a = attrExpr(renderer.attrs.attr, where)
      const list = child(renderer, 'ranges')
      return { firstMatch: true, rules: (list ? childrenOf(list, 'range') : []).map((r, i) => {
        const at = `${where}/ranges/range[${i + 1}]`
        const lo = Number(r.attrs.lower), hi = Number(r.attrs.upper)
        if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw new StyleError('A range needs numeric lower and upper bounds', at)
        const filter: Expr = { k: 'and', a: { k: 'cmp', op: '>=', a, b: { k: 'lit', v: lo } }, b: { k: 'cmp', op: '<=', a, b: { k: 'lit', v: hi } } }
        return { title: r.attrs.label ?? `${lo} - ${hi}`, filter, symbolizers: sym(r.attrs.symbol, at), enabled: r.attrs.render !== 'false' }
      }) }
    }
    case 'RuleRenderer': {
      const out: StyleRule[] = []
      const walk = (node: XmlNode, parent: Expr | undefined, scale: ScaleRange, path: string) => {
        childrenOf(node, 'rule').forEach((r, i) => {
          const at = `${path}/rule[${i + 1}]`
          if (r.attrs.checkstate === '0') return
          const src = r.attrs.filter?.trim()
          const isElse = src?.toUpperCase() === 'ELSE'
          const own = src && !isElse ? expr(src, at) : undefined
          const filter = parent && own ? { k: 'and' as const, a: parent, b: own } : own ?? parent
          const sc = intersect(range(r.attrs.scalemindenom, r.attrs.scalemaxdenom), scale)
          if (r.attrs.symbol !== undefined) {
            out.push({ title: r.attrs.label ?? src ?? '', filter, isElse, symbolizers: sym(r.attrs.symbol, at), enabled: true,
              minScale: sc.minScale, maxScale: sc.maxScale })
          }
          walk(r, filter, sc, at)
        })
      }
      const root = child(renderer, 'rules')
      if (root) walk(root, undefined, {}, `${where}/rules`)
      return { firstMatch: false, rules: out }
    }
    default:
      throw new StyleError(`Renderer '${type}' is not supported (single symbol, categorized, graduated and rule-based are)`, where)
  }
}

const QUADRANTS: LabelPosition[] = ['ul', 'uc', 'ur', 'cl', 'cc', 'cr', 'll', 'lc', 'lr']

function labelFromSettings(s: XmlNode, geom: string, where: string): { label: LabelStyle } | undefined {
  const ts = child(s, 'text-style')
  if (!ts) return undefined
  const field = ts.attrs.fieldname
  if (!field) return undefined
  const text: Expr = ts.attrs.isexpression === '1' ? expr(field, `${where}/text-style`) : { k: 'field', name: field }
  const buffer = child(ts, 'text-buffer')
  const pl = child(s, 'placement')
  const rendering = child(s, 'rendering')
  const size = toPx(Number(ts.attrs.fontsize ?? 10), ts.attrs.fontsizeunit ?? 'Point')
  const haloColor = buffer?.attrs.bufferdraw === '1' ? qgisColor(buffer.attrs.buffercolor, Number(buffer.attrs.bufferopacity ?? 1), where) : undefined
  const quad = Number(pl?.attrs.quadoffset ?? 4)
  const pointPlacement = pl?.attrs.placement === '1' ? QUADRANTS[quad] ?? 'cc' : 'ur'
  return { label: {
    text, size,
    color: qgisColor(ts.attrs.textcolor, Number(ts.attrs.textopacity ?? 1), where) ?? 'rgba(0,0,0,1)',
    bold: Number(ts.attrs.fontweight ?? 50) >= 63 || ts.attrs.fontbold === '1',
    italic: ts.attrs.fontitalic === '1',
    halo: haloColor ? { color: haloColor, width: toPx(Number(buffer!.attrs.buffersize ?? 1), buffer!.attrs.buffersizeunits ?? 'MM') } : undefined,
    position: geom === 'point' ? pointPlacement : 'cc',
    offset: [toPx(Number(pl?.attrs.xoffset ?? 0), pl?.attrs.offsetunits), toPx(Number(pl?.attrs.yoffset ?? 0), pl?.attrs.offsetunits)],
    ...(rendering?.attrs.scalevisibility === '1' ? range(rendering.attrs.scalemin, rendering.attrs.scalemax) : {}),
  } }
}

function labels(root: XmlNode, geom: string): VectorStyle['labels'] {
  const labeling = child(root, 'labeling')
  if (labeling?.attrs.type === 'simple') {
    const s = child(labeling, 'settings')
    const l = s && labelFromSettings(s, geom, '/qgis/labeling/settings')
    return l ? [l] : []
  }
  if (labeling?.attrs.type === 'rule-based') {
    const out: VectorStyle['labels'] = []
    const walk = (node: XmlNode, parent: Expr | undefined, path: string) => childrenOf(node, 'rule').forEach((r, i) => {
      const at = `${path}/rule[${i + 1}]`
      if (r.attrs.active === '0') return
      const own = r.attrs.filter ? expr(r.attrs.filter, at) : undefined
      const filter = parent && own ? { k: 'and' as const, a: parent, b: own } : own ?? parent
      const s = child(r, 'settings')
      const l = s && labelFromSettings(s, geom, `${at}/settings`)
      if (l) out.push({ filter, label: l.label })
      walk(r, filter, at)
    })
    const rulesNode = child(labeling, 'rules')
    if (rulesNode) walk(rulesNode, undefined, '/qgis/labeling/rules')
    return out
  }
  // QGIS 2.x: labeling/* custom properties.
  const props = new Map<string, string>()
  const cp = child(root, 'customproperties')
  for (const p of cp ? childrenOf(cp, 'property') : []) props.set(p.attrs.key ?? '', p.attrs.value ?? '')
  if (props.get('labeling/enabled') !== 'true' || !props.get('labeling/fieldName')) return []
  const rgb = (k: string) => `${props.get(`${k}R`) ?? 0},${props.get(`${k}G`) ?? 0},${props.get(`${k}B`) ?? 0},255`
  const text: Expr = props.get('labeling/isExpression') === 'true' ? expr(props.get('labeling/fieldName')!, '/qgis/customproperties')
    : { k: 'field', name: props.get('labeling/fieldName')! }
  const bufferSize = Number(props.get('labeling/bufferSize') ?? 0)
  return [{ label: { text, size: toPx(Number(props.get('labeling/fontSize') ?? 10), 'Point'),
    color: qgisColor(rgb('labeling/textColor'), 1, '/qgis/customproperties')!, bold: Number(props.get('labeling/fontWeight') ?? 50) >= 63,
    italic: props.get('labeling/fontItalic') === 'true',
    halo: bufferSize > 0 ? { color: qgisColor(rgb('labeling/bufferColor'), 1, '/qgis/customproperties')!, width: toPx(bufferSize, 'MM') } : undefined,
    position: geom === 'point' ? 'ur' : 'cc', offset: [0, 0] } }]
}

/** Reads a QML document for a layer of geometry `geom`; throws `StyleError` naming the place. */
export function parseQml(qml: string, geom: 'point' | 'line' | 'polygon'): VectorStyle {
  let root: XmlNode
  try {
    root = parseXml(qml)
  } catch (err) {
    if (err instanceof XmlError) throw new StyleError(`QML is not well-formed: ${err.message}`, 'qml')
    throw err
  }
  if (root.name !== 'qgis') throw new StyleError(`The root element must be <qgis>, got <${root.name}>`, 'qml')
  const renderer = child(root, 'renderer-v2')
  if (!renderer) throw new StyleError('The style has no <renderer-v2>: it is not a vector layer style', '/qgis')
  const r = rules(renderer, '/qgis/renderer-v2')
  const layerScale = root.attrs.hasscalebasedvisibilityflag === '1' ? range(root.attrs.minscale, root.attrs.maxscale) : {}
  for (const rule of r.rules) Object.assign(rule, intersect(rule, layerScale))
  const opacity = Number(textOf(root, 'layeropacity') ?? 1)
  return { kind: 'vector', rules: r.rules, firstMatch: r.firstMatch, labels: labels(root, geom),
    opacity: Number.isFinite(opacity) ? Math.max(0, Math.min(1, opacity)) : 1, dpi: QGIS_DPI }
}
