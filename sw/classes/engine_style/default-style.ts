/**
 * @module classes/engine_style/default-style
 * The XML style a new style gets when none is sent: one class in a palette colour.
 */
import type { GeometryKind } from '../../render/style.ts'
import { paletteColor } from '../../render/palette.ts'

export function defaultStyleXml(geom: GeometryKind, seed: number): string {
  const [r, g, b] = paletteColor(seed)
  const color = `<color red="${r}" green="${g}" blue="${b}"/>`
  const outline = '<outlinecolor red="64" green="64" blue="64"/>'
  const style = geom === 'point'
    ? `<style>${color}${outline}<symbol>circle</symbol><size>6</size></style>`
    : geom === 'line' ? `<style>${color}<width>2</width></style>` : `<style>${color}${outline}</style>`
  const symbol = geom === 'point'
    ? '\n  <symbol><type>ellipse</type><name>circle</name><points>1 1</points><filled>true</filled></symbol>' : ''
  return `<map>${symbol}\n  <layer>\n    <class>\n      ${style}\n    </class>\n  </layer>\n</map>\n`
}
