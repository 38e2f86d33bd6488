/**
 * Builds the bundled offline world basemap, `public/basemap/world.pmtiles`: vector tiles of
 * zooms 0–5 cut from Natural Earth (public domain, through the `world-atlas` package's
 * TopoJSON: 1:110m below zoom 3, 1:50m from 3) by the backend's own tile cutter, in one
 * PMTiles v3 archive. Layers: `land` (polygons), `boundaries` (country borders, lines) and
 * `places` (country names at a point inside each country, `rank` 1 = the largest).
 *
 *   npx tsx scripts/build-basemap.ts        # rewrites public/basemap/world.pmtiles
 *
 * The file is committed, so builds do not depend on this script.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { gzipSync } from 'fflate'
import { feature, mesh } from 'topojson-client'
// @ts-expect-error polylabel ships no types; used as (polygon, precision) => [x, y]
import polylabel from 'polylabel'
import type { Topology, GeometryCollection } from 'topojson-specification'
import type { Feature, Geometry, Position } from 'geojson'
import { cutShape } from '../sw/mvt/cut.ts'
import { LayerEncoder } from '../sw/mvt/encode.ts'
import { LINE, POINT, POLYGON, type TileShape } from '../sw/mvt/shape.ts'
import { latToMercator, lonToMercator, tileBbox } from '../sw/geo/tile.ts'
import { concatBytes } from '../sw/core/bytes.ts'
import { writePmtiles, type PmtilesTile } from './pmtiles-writer.ts'
import { flatAtAntimeridian } from './antimeridian.ts'

const MAX_ZOOM = 5
const EXTENT = 4096
const BUFFER = 64 / 4096
const OUT = 'public/basemap/world.pmtiles'

const require = createRequire(import.meta.url)
const topo = (name: string) => JSON.parse(readFileSync(require.resolve(`world-atlas/${name}`), 'utf8')) as Topology

interface Source { land: Geometry[]; borders: Geometry; places: { name: string; lon: number; lat: number; rank: number }[] }

function sourceOf(scale: '110m' | '50m'): Source {
  const countries = topo(`countries-${scale}.json`)
  const land = topo(`land-${scale}.json`)
  const landFc = feature(land, land.objects.land as GeometryCollection) as unknown as { features: Feature[] } | Feature
  const landGeoms = 'features' in landFc ? landFc.features.map((f) => f.geometry) : [landFc.geometry]
  const borders = mesh(countries, countries.objects.countries as GeometryCollection, (a, b) => a !== b) as Geometry
  const fc = feature(countries, countries.objects.countries as GeometryCollection) as unknown as { features: Feature[] }
  const places = fc.features.filter((f) => f.geometry && f.properties?.name).map((f) => {
    const polys = f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.type === 'MultiPolygon' ? f.geometry.coordinates : []
    const area = (p: Position[][]) => Math.abs(p[0]!.reduce((s, a, i, r) => { const b = r[(i + 1) % r.length]!; return s + a[0]! * b[1]! - b[0]! * a[1]! }, 0))
    const largest = polys.reduce((a, b) => (area(b) > area(a) ? b : a))
    const [lon, lat] = polylabel(largest as number[][][], 0.1)
    return { name: String(f.properties!.name), lon: lon!, lat: lat!, size: polys.reduce((s, p) => s + area(p), 0) }
  }).sort((a, b) => b.size - a.size).map((p, i) => ({ name: p.name, lon: p.lon, lat: p.lat, rank: i + 1 }))
  // Flat-safe: no edge across the antimeridian (scripts/antimeridian.ts).
  return { land: landGeoms.map(flatAtAntimeridian), borders: flatAtAntimeridian(borders), places }
}

/** Lon/lat positions in tile units of `z/x/y`. */
function projector(z: number, x: number, y: number) {
  const b = tileBbox(z, x, y)
  const k = EXTENT / (b[2] - b[0])
  return (ps: Position[]) => {
    const out: number[] = []
    for (const p of ps) out.push((lonToMercator(p[0]!) - b[0]) * k, (b[3] - latToMercator(p[1]!)) * k)
    return out
  }
}

function shapeOf(g: Geometry, project: (ps: Position[]) => number[]): TileShape | null {
  switch (g.type) {
    case 'Polygon': return { type: POLYGON, polygons: [g.coordinates.map(project)] }
    case 'MultiPolygon': return { type: POLYGON, polygons: g.coordinates.map((p) => p.map(project)) }
    case 'LineString': return { type: LINE, lines: [project(g.coordinates)] }
    case 'MultiLineString': return { type: LINE, lines: g.coordinates.map(project) }
    default: return null
  }
}

/** Countries named at a zoom: the largest few at zoom 0, all from zoom 4. */
const placesAt = (z: number) => [12, 40, 90, 160, 400, 400][z]!

function tile(src: Source, z: number, x: number, y: number): Uint8Array {
  const project = projector(z, x, y)
  const pad = EXTENT * BUFFER
  const clip: [number, number, number, number] = [-pad, -pad, EXTENT + pad, EXTENT + pad]
  const tolerance = 2
  const layers: Uint8Array[] = []
  const land = new LayerEncoder('land', EXTENT, [], [])
  src.land.forEach((g, i) => { const s = shapeOf(g, project); const c = s && cutShape(s, clip, tolerance); if (c) land.add(i + 1, c, []) })
  layers.push(land.finish())
  const borders = new LayerEncoder('boundaries', EXTENT, [], [])
  const bs = shapeOf(src.borders, project)
  const bc = bs && cutShape(bs, clip, tolerance)
  if (bc) borders.add(1, bc, [])
  layers.push(borders.finish())
  const places = new LayerEncoder('places', EXTENT, ['name', 'rank'], ['string', 'int'])
  for (const p of src.places) {
    if (p.rank > placesAt(z)) continue
    const c = cutShape({ type: POINT, points: project([[p.lon, p.lat]]) }, [0, 0, EXTENT, EXTENT], 0)
    if (c) places.add(p.rank, c, [p.name, p.rank])
  }
  layers.push(places.finish())
  return concatBytes(layers)
}

function main(): void {
  const small = sourceOf('110m')
  const detailed = sourceOf('50m')
  const tiles: PmtilesTile[] = []
  for (let z = 0; z <= MAX_ZOOM; z++) {
    const src = z < 3 ? small : detailed
    for (let x = 0; x < 2 ** z; x++) {
      for (let y = 0; y < 2 ** z; y++) {
        const bytes = tile(src, z, x, y)
        if (bytes.length) tiles.push({ z, x, y, data: gzipSync(bytes, { level: 9, mtime: 0 }) })
      }
    }
  }
  const archive = writePmtiles(tiles, {
    minZoom: 0, maxZoom: MAX_ZOOM,
    metadata: { name: 'Outpost world basemap', attribution: 'Made with Natural Earth (public domain)',
      description: 'Land, country borders and country names from Natural Earth 1:110m and 1:50m (world-atlas 2).',
      vector_layers: [{ id: 'land', fields: {} }, { id: 'boundaries', fields: {} }, { id: 'places', fields: { name: 'String', rank: 'Number' } }] },
  })
  mkdirSync('public/basemap', { recursive: true })
  writeFileSync(OUT, archive)
  console.log(`${OUT}: ${tiles.length} tiles, ${(archive.length / 1024).toFixed(0)} KiB`)
}

main()
