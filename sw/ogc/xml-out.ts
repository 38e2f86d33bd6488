/**
 * @module ogc/xml-out
 * XML written by hand: elements from a name, attributes and children, every text and
 * attribute value escaped. The OGC documents are small and fixed in shape, so strings beat a
 * builder's object model.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

/** `s` safe inside an element or a double-quoted attribute; characters XML 1.0 forbids are dropped. */
export function esc(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

export type Attrs = Record<string, string | number | undefined>

/** One element; `body` is either escaped text (a string) or already written children (an array). */
export function el(name: string, attrs: Attrs | null, body?: string | ReadonlyArray<string | false | undefined>): string {
  let open = name
  for (const [k, v] of Object.entries(attrs ?? {})) if (v !== undefined) open += ` ${k}="${esc(String(v))}"`
  if (body === undefined) return `<${open}/>`
  const inner = typeof body === 'string' ? esc(body) : body.filter((b) => typeof b === 'string').join('')
  return `<${open}>${inner}</${name}>`
}
