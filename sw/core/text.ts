/**
 * @module core/text
 * Small text conversions shared by components.
 */

/** A case-sensitive LIKE pattern as SQLite GLOB: `%`/`_` become `*`/`?`, GLOB's own specials are quoted. */
export function likeToGlob(pattern: string): string {
  return pattern.replace(/[*?[\]%_]/g, (ch) => ({ '%': '*', _: '?' } as Record<string, string>)[ch] ?? `[${ch}]`)
}

/** Python's `urllib.parse.quote_plus` with its default `safe=''`: only letters, digits and `_.-~` stay; space becomes `+`. */
export function quotePlus(s: string): string {
  // Byte-wise over UTF-8 (a lone surrogate becomes U+FFFD instead of throwing, as in encodeURIComponent).
  return Array.from(new TextEncoder().encode(s), (b) => {
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f || b === 0x2e || b === 0x7e || b === 0x2d) {
      return String.fromCharCode(b)
    }
    return b === 0x20 ? '+' : `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  }).join('')
}
