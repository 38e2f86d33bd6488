/**
 * @module core/media-type
 * Media types as stored for uploads and attachments, and the headers a stored file is served
 * with. A stored type ends up in a Content-Type header, so it must be one (control characters
 * made every later download of an attachment fail); and a file anyone could attach must not
 * run as a page of this origin (HTML, SVG and XML can carry script).
 */

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+"
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\x00-\\x1f\\x7f]*"))*$`)

/** Whether `s` is a media type as HTTP writes it (RFC 9110 §8.3.1), at most 255 characters. */
export function isMediaType(s: string): boolean {
  return s.length <= 255 && MEDIA_TYPE.test(s)
}

/** Types a browser shows without running anything of the file's: served inline. */
const INLINE = /^(image\/(png|jpeg|gif|webp|bmp|avif)|audio\/[\w.+-]+|video\/[\w.+-]+|text\/(plain|csv)|application\/(pdf|json))$/

/**
 * Headers for serving stored bytes of type `mime` named `name`: never sniffed, sandboxed, and
 * any type outside a short list of passive ones is a download (`attachment`), not a page.
 * A type that is not a media type (stored before they were checked) is served as bytes.
 */
export function fileHeaders(mime: string, dispositionValue: string): Record<string, string> {
  const type = isMediaType(mime) ? mime : 'application/octet-stream'
  const essence = type.split(';')[0]!.trim().toLowerCase()
  return {
    'content-type': type,
    // Inline types keep the original's bare `filename*=…` value.
    'content-disposition': INLINE.test(essence) ? dispositionValue : `attachment; ${dispositionValue}`,
    'x-content-type-options': 'nosniff',
    'content-security-policy': 'sandbox',
  }
}
