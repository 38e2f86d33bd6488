/**
 * The render benchmark's data, shared by render.bench.ts and ab-render.ts: 20,000 octagons on a
 * grid, the 5-class labelled XML style, and the tile set; the same polygons as a GeoPackage and an
 * RGB raster over the same area, for MapServer (render.bench.ts, wms.bench.ts).
 */
import { execSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeArrayBuffer } from 'geotiff'
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


/** The polygons as `dir/features.gpkg` (layer `features`), written by Debian's ogr2ogr. */
export function writeGpkg(dir: string): string {
  const geojson = join(dir, 'features.geojson')
  writeFileSync(geojson, JSON.stringify({ type: 'FeatureCollection', features: Array.from({ length: N }, (_, i) => {
    const ring = polygonWkt(i).slice(9, -2).split(',').map((p) => p.split(' ').map(Number))
    return { type: 'Feature', properties: fieldsOf(i), geometry: { type: 'Polygon', coordinates: [ring] } }
  }) }))
  const gpkg = join(dir, 'features.gpkg')
  execSync(`ogr2ogr -f GPKG ${gpkg} ${geojson} -nln features -a_srs EPSG:3857`)
  return gpkg
}

/** The raster: an RGB GeoTIFF (COG) over the same area. */
export const RW = 4096, RH = 2048

/** Writes the raster with geotiff.js and makes it a COG with Debian's gdal_translate (tiled, DEFLATE, averaged overviews). */
export function makeRaster(dir: string): string {
  const px = new Uint8Array(RW * RH * 3)
  for (let y = 0; y < RH; y++) {
    for (let x = 0; x < RW; x++) {
      const o = (y * RW + x) * 3
      const n = (Math.imul(x * 73856093 ^ y * 19349663, 2654435761) >>> 24) & 31
      px[o] = (x * 255) / RW + n; px[o + 1] = (y * 255) / RH + n; px[o + 2] = 128 + 64 * Math.sin(x / 40) * Math.cos(y / 40)
    }
  }
  const res = (COLS * CELL) / RW
  const tif = writeArrayBuffer(Object.assign(px, { width: RW, height: RH }) as never, { width: RW, height: RH, SamplesPerPixel: 3,
    BitsPerSample: [8, 8, 8], PhotometricInterpretation: 2, PlanarConfiguration: 1, ModelPixelScale: [res, res, 0],
    ModelTiepoint: [0, 0, 0, X0, Y0 + RH * res, 0], GTModelTypeGeoKey: 1, GTRasterTypeGeoKey: 1, ProjectedCSTypeGeoKey: 3857 })
  writeFileSync(join(dir, 'raw.tif'), new Uint8Array(tif))
  const cog = join(dir, 'raster.tif')
  execSync(`gdal_translate -q -of COG -co BLOCKSIZE=256 -co COMPRESS=DEFLATE -co OVERVIEW_RESAMPLING=AVERAGE ${join(dir, 'raw.tif')} ${cog}`)
  return cog
}

