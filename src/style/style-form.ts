/**
 * @module style/style-form
 * The style editor's simple form (colours, width, size, classes by a field, labels) and the
 * MapServer XML it writes. The form travels inside the XML as a comment, so a style made
 * here opens in the form again; any other XML is edited as text.
 */

export type StyleGeometry = 'point' | 'line' | 'polygon'

export interface StyleClass { value: string; color: string }

export interface StyleForm {
  geometry: StyleGeometry
  fill: string
  stroke: string
  width: number
  /** Point symbol diameter, px. */
  size: number
  /** 0..100. */
  opacity: number
  classify: { field: string; classes: StyleClass[] } | null
  label: { field: string; size: number; color: string; halo: string } | null
}

const MARK = 'outpost-style-form'
export const PALETTE = ['#8dd3c7', '#ffffb3', '#bebada', '#fb8072', '#80b1d3', '#fdb462', '#b3de69', '#fccde5', '#d9d9d9', '#bc80bd', '#ccebc5', '#ffed6f']

export function geometryOf(layerType: string): StyleGeometry {
  const t = layerType.replace(/^MULTI/, '').replace(/Z$/, '')
  return t === 'POINT' ? 'point' : t === 'LINESTRING' ? 'line' : 'polygon'
}

export function defaultForm(geometry: StyleGeometry, seed = 0): StyleForm {
  return { geometry, fill: PALETTE[seed % PALETTE.length]!, stroke: '#404040', width: geometry === 'line' ? 2 : 1, size: 8,
    opacity: 100, classify: null, label: null }
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
/** `#rrggbb` as MapServer's colour element. */
function color(tag: string, hex: string): string {
  const n = parseInt(hex.replace('#', ''), 16)
  return `<${tag} red="${(n >> 16) & 255}" green="${(n >> 8) & 255}" blue="${n & 255}"/>`
}

function styleXml(f: StyleForm, fill: string): string {
  const parts = [color('color', fill)]
  if (f.geometry !== 'line') parts.push(color('outlinecolor', f.stroke))
  parts.push(`<width>${f.width}</width>`)
  if (f.geometry === 'point') parts.push('<symbol>circle</symbol>', `<size>${f.size}</size>`)
  if (f.opacity < 100) parts.push(`<opacity>${Math.round(f.opacity)}</opacity>`)
  return `<style>${parts.join('')}</style>`
}

function labelXml(f: StyleForm): string {
  const l = f.label
  if (!l) return ''
  return `<label><size>${l.size}</size>${color('color', l.color)}${color('outlinecolor', l.halo)}<outlinewidth>2</outlinewidth>`
    + `<position>${f.geometry === 'point' ? 'ur' : 'cc'}</position></label>`
}

/** The MapServer XML of a form (with the form itself in a comment). */
export function formToXml(f: StyleForm): string {
  const classes: string[] = []
  if (f.classify) {
    for (const c of f.classify.classes) {
      classes.push(`<class><name>${esc(c.value)}</name><expression>"${esc(c.value.replace(/"/g, '\\"'))}"</expression>${styleXml(f, c.color)}${labelXml(f)}</class>`)
    }
  }
  classes.push(`<class><name>${f.classify ? 'Other' : ''}</name>${styleXml(f, f.fill)}${labelXml(f)}</class>`)
  const layer = [
    f.classify ? `<classitem>${esc(f.classify.field)}</classitem>` : '',
    f.label ? `<labelitem>${esc(f.label.field)}</labelitem>` : '',
    ...classes,
  ].filter(Boolean).join('\n    ')
  const symbol = f.geometry === 'point' ? '\n  <symbol><name>circle</name><type>ellipse</type><points>1 1</points><filled>true</filled></symbol>' : ''
  return `<!-- ${MARK} ${JSON.stringify(f).replace(/--/g, '\\u002d\\u002d')} -->\n<map>${symbol}\n  <layer>\n    ${layer}\n  </layer>\n</map>\n`
}

/** The form a style was made from, or `null` for XML written by hand. */
export function xmlToForm(xml: string): StyleForm | null {
  const m = new RegExp(`<!-- ${MARK} (.*?) -->`, 's').exec(xml)
  if (!m) return null
  try {
    const f = JSON.parse(m[1]!) as StyleForm
    return typeof f.fill === 'string' && typeof f.geometry === 'string' ? f : null
  } catch {
    return null
  }
}

/** Classes for the distinct `values` of a field, in palette colours (at most 12, the rest go to "Other"). */
export function classesFor(values: unknown[]): StyleClass[] {
  const distinct = [...new Set(values.filter((v) => v !== null && v !== undefined && v !== '').map(String))].sort()
  return distinct.slice(0, PALETTE.length).map((value, i) => ({ value, color: PALETTE[i]! }))
}
