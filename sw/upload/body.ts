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
