/**
 * Data and tile set of the tiles benchmark, the same on every side: points and small
 * polygons in EPSG:3857 spread over a 2,000 km square around 60 clusters (a seeded
 * generator, so every run and every side gets the same features), and a fixed set of tiles
 * at zooms 5–14 centred on features.
 */

/** The fuzz test's seeded generator (mulberry32). */
import { prng as random } from '../fuzz/generator.ts'

const X0 = 2_000_000, Y0 = 6_000_000, SIZE = 2_000_000
const CLUSTERS = (() => {
  const r = random(7)
  return Array.from({ length: 60 }, () => [X0 + r() * SIZE, Y0 + r() * SIZE, 5_000 + r() * 60_000] as const)
})()

/** Position `i` of the data set `seed`: 80 % in clusters, 20 % spread evenly. */
export function position(seed: number, i: number): [number, number] {
  const r = random(seed * 7919 + i)
  if (r() < 0.2) return [X0 + r() * SIZE, Y0 + r() * SIZE]
  const [cx, cy, spread] = CLUSTERS[Math.floor(r() * CLUSTERS.length)]!
  // A sum of three uniforms: roughly normal around the cluster's centre.
  const d = () => (r() + r() + r() - 1.5) * spread
  return [cx + d(), cy + d()]
}

export interface BenchFeature { wkt: string; name: string; n: number }

export function pointFeature(seed: number, i: number): BenchFeature {
  const [x, y] = position(seed, i)
  return { wkt: `POINT(${x.toFixed(2)} ${y.toFixed(2)})`, name: `feature ${i}`, n: i }
}

/** A 12-sided polygon of 200–2,000 m radius. */
export function polygonFeature(seed: number, i: number): BenchFeature {
  const [x, y] = position(seed, i)
  const radius = 200 + random(i)() * 1800
  const ring: string[] = []
  for (let k = 0; k <= 12; k++) {
    const a = ((k % 12) / 12) * 2 * Math.PI
    ring.push(`${(x + radius * Math.cos(a)).toFixed(2)} ${(y + radius * Math.sin(a)).toFixed(2)}`)
  }
  return { wkt: `POLYGON((${ring.join(',')}))`, name: `area ${i}`, n: i }
}

const HALF = 20037508.342789244

/**
 * Tiles at zooms 5–14, `perZoom` distinct ones each (fewer where the data touches fewer),
 * each holding a feature of data set `seed`.
 */
export function tileSet(seed: number, count: number, perZoom: number): [number, number, number][] {
  const out: [number, number, number][] = []
  const r = random(99)
  for (let z = 5; z <= 14; z++) {
    const size = (2 * HALF) / 2 ** z
    const seen = new Set<string>()
    for (let tries = 0; seen.size < perZoom && tries < 50 * perZoom; tries++) {
      const [x, y] = position(seed, Math.floor(r() * count))
      const t: [number, number, number] = [z, Math.floor((x + HALF) / size), Math.floor((HALF - y) / size)]
      if (seen.has(t.join('/'))) continue
      seen.add(t.join('/'))
      out.push(t)
    }
  }
  return out
}
