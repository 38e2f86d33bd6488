/**
 * @module classes/engine_style/default-style
 * The XML style a new style gets when none is sent: one class in a colour picked from
 * ColorBrewer's 12-colour palette by the resource id (as the original picks one at random).
 */
import type { GeometryKind } from '../../render/style.ts'

export const PALETTE: [number, number, number][] = [
  [141, 211, 199], [255, 255, 179], [190, 186, 218], [251, 128, 114], [128, 177, 211], [253, 180, 98],
  [179, 222, 105], [252, 205, 229], [217, 217, 217], [188, 128, 189], [204, 235, 197], [255, 237, 111],
]

export function defaultStyleXml(geom: GeometryKind, seed: number): string {
  const [r, g, b] = PALETTE[Math.abs(seed) % PALETTE.length]!
  const color = `<color red="${r}" green="${g}" blue="${b}"/>`
  const outline = '<outlinecolor red="64" green="64" blue="64"/>'
  const style = geom === 'point'
    ? `<style>${color}${outline}<symbol>circle</symbol><size>6</size></style>`
    : geom === 'line' ? `<style>${color}<width>2</width></style>` : `<style>${color}${outline}</style>`
  const symbol = geom === 'point'
    ? '\n  <symbol><type>ellipse</type><name>circle</name><points>1 1</points><filled>true</filled></symbol>' : ''
  return `<map>${symbol}\n  <layer>\n    <class>\n      ${style}\n    </class>\n  </layer>\n</map>\n`
}
