/**
 * @module upload/body
 * File names from the headers and form parts of an upload.
 */

/** A file name without any path, trimmed; `undefined` when nothing is left (the original's `_sanitize_name`). */
export function sanitizeName(name: string | null | undefined): string | undefined {
  if (name == null) return undefined
  const base = name.replace(/^.*[/\\]/, '').trim()
  return base || undefined
}

/** The file name of a `Content-Disposition` header: `filename*=UTF-8''…` first, then `filename=`. */
export function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined
  const ext = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header)
  if (ext) {
    try { return sanitizeName(decodeURIComponent(ext[1]!.trim())) } catch { /* fall back to filename= */ }
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header)
  if (quoted) return sanitizeName(quoted[1]!.replace(/\\(.)/g, '$1'))
  const bare = /filename\s*=\s*([^;]+)/i.exec(header)
  return sanitizeName(bare?.[1])
}

/**
 * The `name` and `filename` of a form part's Content-Disposition. Browsers write non-ASCII
 * file names as raw UTF-8 inside the quotes, which multipasta's own parser gives up on.
 */
export function partNames(header: string | undefined): { name: string; filename?: string } {
  const quoted = (key: string) => new RegExp(`(?:^|;)\\s*${key}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(header ?? '')
  const value = (m: RegExpExecArray | null) => (m ? (m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1') : undefined)
  const out: { name: string; filename?: string } = { name: value(quoted('name')) ?? '' }
  const filename = /filename\*\s*=/i.test(header ?? '') ? dispositionName(header!) ?? '' : value(quoted('filename'))
  if (filename !== undefined) out.filename = filename
  return out
}
