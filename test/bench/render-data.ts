/**
 * The render benchmark's data, shared by render.bench.ts and ab-render.ts: 20,000 octagons on a
 * grid, the 5-class labelled XML style, and the tile set.
 */
export const ORIGIN = 20037508.342789244
export const COLS = 200, ROWS = 100, CELL = 10_000, X0 = 0, Y0 = 5_000_000
export const N = COLS * ROWS

const COLORS = [[141, 211, 199], [255, 255, 179], [190, 186, 218], [251, 128, 114], [128, 177, 211]]
export const STYLE = `<map><layer><labelitem>name</labelitem>
${COLORS.map(([r, g, b], i) => `  <class><name>Class ${i}</name><expression>([cls] = ${i})</expression>
    <style><color red="${r}" green="${g}" blue="${b}"/><outlinecolor red="64" green="64" blue="64"/><width>1</width></style>
    <label><size>9</size><color red="0" green="0" blue="0"/><outlinecolor red="255" green="255" blue="255"/><outlinewidth>2</outlinewidth></label></class>`).join('\n')}
</layer></map>`

/** Octagons on a grid: cell i holds a polygon of radius 0.45 cell. */
export function polygonWkt(i: number): string {
  const cx = X0 + (i % COLS) * CELL + CELL / 2, cy = Y0 + Math.floor(i / COLS) * CELL + CELL / 2
  const pts: string[] = []
  for (let k = 0; k <= 8; k++) {
    const a = ((k % 8) / 8) * Math.PI * 2
    pts.push(`${(cx + Math.cos(a) * CELL * 0.45).toFixed(2)} ${(cy + Math.sin(a) * CELL * 0.45).toFixed(2)}`)
  }
  return `POLYGON((${pts.join(',')}))`
}
export const fieldsOf = (i: number) => ({ cls: (i * 7919) % 5, name: `P${i}`, num: i / 10 })

/** The tile set: 5 tiles at each of zooms 6, 8, 10, 12 over the data, spread from its centre. */
export function tileSet(): [number, number, number][] {
  const out: [number, number, number][] = []
  for (const z of [6, 8, 10, 12]) {
    const step = (2 * ORIGIN) / 2 ** z
    for (let k = 0; k < 5; k++) {
      const x = X0 + (COLS * CELL) * (0.2 + 0.15 * k), y = Y0 + (ROWS * CELL) * (0.3 + 0.1 * k)
      out.push([z, Math.floor((x + ORIGIN) / step), Math.floor((ORIGIN - y) / step)])
    }
  }
  return out
}
export const extentOf = ([z, x, y]: [number, number, number]) => {
  const s = (2 * ORIGIN) / 2 ** z
  return [-ORIGIN + x * s, ORIGIN - (y + 1) * s, -ORIGIN + (x + 1) * s, ORIGIN - y * s]
}

