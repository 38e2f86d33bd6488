/**
 * @module render/xml
 * A small element tree over fast-xml-parser (pure JS, so it runs in the service worker,
 * which has no DOMParser). Malformed XML throws `XmlError` with its line and column.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser'

export interface XmlNode {
  /** Lower-cased tag name. */
  name: string
  attrs: Record<string, string>
  children: XmlNode[]
  text: string
}

export class XmlError extends Error {
  constructor(message: string, readonly line?: number, readonly column?: number) {
    super(line === undefined ? message : `${message} (line ${line}, column ${column})`)
  }
}

const parser = new XMLParser({
  preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false,
  parseAttributeValue: false, trimValues: false, processEntities: true, commentPropName: '#comment',
})

type Raw = Record<string, unknown>

function toNode(raw: Raw): XmlNode | undefined {
  const name = Object.keys(raw).find((k) => k !== ':@')
  if (!name || name === '#text' || name === '#comment' || name.startsWith('?')) return undefined
  const attrs: Record<string, string> = {}
  for (const [k, v] of Object.entries((raw[':@'] ?? {}) as Record<string, unknown>)) attrs[k.toLowerCase()] = String(v)
  const node: XmlNode = { name: name.toLowerCase(), attrs, children: [], text: '' }
  for (const c of (raw[name] ?? []) as Raw[]) {
    if ('#text' in c) node.text += String(c['#text'])
    else {
      const child = toNode(c)
      if (child) node.children.push(child)
    }
  }
  return node
}

/**
 * `xml` with its DOCTYPE blanked out (QGIS writes `<!DOCTYPE qgis PUBLIC …>`; blanks keep
 * lines and columns). A DOCTYPE with declarations is refused: its entities could name files
 * (the parser threw a plain Error on them, a 500) or expand to gigabytes.
 */
function withoutDoctype(xml: string): string {
  const at = xml.search(/<!DOCTYPE/i)
  if (at < 0) return xml
  const end = xml.indexOf('>', at)
  const decl = xml.slice(at, end < 0 ? xml.length : end + 1)
  if (end < 0 || decl.includes('[')) {
    const before = xml.slice(0, at).split('\n')
    throw new XmlError('A DOCTYPE with declarations (entities) is not supported', before.length, before.at(-1)!.length + 1)
  }
  return xml.slice(0, at) + decl.replace(/[^\n]/g, ' ') + xml.slice(at + decl.length)
}

/**
 * The longest style document read: parsing costs ~0.5 s per MiB on the request thread, and
 * MapServer and QGIS styles are kilobytes (a 32 MiB body would stall every request for ~16 s).
 */
export const XML_MAX_LENGTH = 1024 * 1024

/** The root element of `xml`; throws `XmlError`. `maxLength`: a longer document is refused unparsed. */
export function parseXml(source: string, maxLength = XML_MAX_LENGTH): XmlNode {
  if (source.length > maxLength) throw new XmlError(`The document is longer than ${maxLength} characters (${Math.round(maxLength / 1048576)} MiB)`)
  const xml = withoutDoctype(source)
  const valid = XMLValidator.validate(xml)
  if (valid !== true) throw new XmlError(valid.err.msg, valid.err.line, valid.err.col)
  let raw: Raw[]
  try {
    raw = parser.parse(xml) as Raw[]
  } catch (err) {
    // The validator passes some text the parser then throws on (`<!a` inside an element): a 422, not a 500.
    throw new XmlError(`The XML cannot be read: ${(err as Error).message.replace(/\s*Context:[\s\S]*$/, '')}`)
  }
  const roots = raw.map(toNode).filter((n): n is XmlNode => !!n)
  if (roots.length !== 1) throw new XmlError('Expected exactly one root element')
  return roots[0]!
}

export const child = (n: XmlNode, name: string) => n.children.find((c) => c.name === name)
export const childrenOf = (n: XmlNode, name: string) => n.children.filter((c) => c.name === name)
/** Trimmed text of child `name`, or `undefined`. */
export const textOf = (n: XmlNode, name: string) => child(n, name)?.text.trim()
