/**
 * @module postgres/features/tile
 * A vector tile of a PostGIS table in one statement (`FeatureLayer.tile`, issue 23's "tiles by
 * `ST_AsMVT`"): a layer's own table (features/layer.ts) and a team's table (external/layer.ts)
 * alike, told apart by their `TableColumns`. What a client reads is what mvt/service.ts writes
 * from SQLite (`cutLayer`, encode.ts, feature/row-values.ts):
 * - layer `opts.layerName`, feature id = fid, attributes by keyname, nulls left out; integers
 *   as integers (a BIGINT past ±2^53 as its digits, as our encoder writes it), REAL as double,
 *   booleans as booleans, strings, dates, times and datetimes as the ISO text SQLite stores
 *   (`canonical`: `to_char`, not the session's DateStyle);
 * - the features whose box meets the tile grown by `padding` (the GiST index on the box in the
 *   stored SRID, the box sampled along its edges as service.ts's `reprojectBbox` samples it),
 *   reprojected to EPSG:3857 and cut by `ST_AsMVTGeom` (clipped at the padded edge, rounded to
 *   the integer grid, polygon rings wound as MVT wants them);
 * - a tile whose box holds more than `thinAbove` features is thinned as mvt/select.ts thins:
 *   features smaller than a cell (the padded tile cut into `grid` × `grid` cells) keep one per
 *   cell, the one of the lowest fid among those whose box centre falls in it (a hash
 *   aggregate over the box: no sort of a million rows), larger features all stay. Whether a
 *   tile is full is told by reading at most `thinAbove` + 1 of its rows, which are the tile's
 *   rows when it is not.
 * Simplification: `ST_AsMVTGeom` itself only drops what is under half a tile unit before it
 * snaps to the grid; ours drops vertices within `simplification` tile units (Douglas–Peucker,
 * extent / 512 by default), so lines and polygons are clipped to the padded tile
 * (`ST_ClipByBox2D`, unless inside it) and go through `ST_Simplify` with that tolerance in
 * metres first, as our cut clips and then simplifies. What still differs: the same
 * Douglas–Peucker runs on EPSG:3857 metres instead of tile units (the same up to scale), from
 * where GEOS's clip starts a ring (a vertex kept by one and dropped by the other lies within
 * the tolerance of the other's outline), `ST_AsMVTGeom` then drops what is under half a unit
 * (where our R*Tree path skips a line or polygon under one unit) and rounds halves to even.
 * Unsimplified, positions agree within one tile unit.
 * A request that put off its refresh of the change counters (tokens.ts `defer`) has them read by
 * the same statement: one round trip for both.
 */
import pg from 'pg'
import type { FeatureLayer, Field, LayerMeta } from '../../feature/types.ts'
import { reprojectBbox } from '../../geo/reproject.ts'
import { padBbox, tileBbox, tileSize } from '../../geo/tile.ts'
import { Params, type TableColumns } from './filter.ts'
import { canonical } from './values.ts'
import { movedAfter, type PgPendingRefresh } from '../tokens.ts'

export type TileAt = Parameters<NonNullable<FeatureLayer['tile']>>[0]
export type EngineTileOptions = Parameters<NonNullable<FeatureLayer['tile']>>[1]

/** Where a layer's features are: its table (as `… f`), its columns, the SRID its geometries are stored in. */
export interface TileTable {
  readonly from: string
  readonly cols: TableColumns
  readonly srid: number
  readonly meta: LayerMeta
}

const SAFE = Number.MAX_SAFE_INTEGER
const q = pg.escapeIdentifier

/**
 * Field `f`'s column in the rows picked (`a<i>`) and its attribute(s) in the tile: one
 * expression per value kind of our encoder. A BIGINT is two columns of the same name, of which
 * `ST_AsMVT` writes the one that is not null: the number within ±2^53, its digits beyond.
 */
function attribute(f: Field, i: number, cols: TableColumns): { inner: string; outer: string[] } {
  const c = cols.field(f)
  const a = `a${i}`, key = q(f.keyname)
  switch (f.datatype) {
    case 'INTEGER': return { inner: `(${c})::bigint AS ${a}`, outer: [`${a} AS ${key}`] }
    case 'BIGINT': return { inner: `(${c})::bigint AS ${a}`, outer: [`CASE WHEN ${a} BETWEEN -${SAFE} AND ${SAFE} THEN ${a} END AS ${key}`,
      `CASE WHEN ${a} NOT BETWEEN -${SAFE} AND ${SAFE} THEN ${a}::text END AS ${key}`] }
    case 'REAL': return { inner: `(${c})::float8 AS ${a}`, outer: [`${a} AS ${key}`] }
    case 'BOOLEAN': return { inner: `(${c})::boolean AS ${a}`, outer: [`${a} AS ${key}`] }
    case 'DATE': case 'TIME': case 'DATETIME': return { inner: `${canonical(c, f.datatype)} AS ${a}`, outer: [`${a} AS ${key}`] }
    default: return { inner: `(${c})::text AS ${a}`, outer: [`${a} AS ${key}`] }
  }
}

/**
 * The one statement of tile `t` of `table` (its text and values); with `carryAfter`, a second
 * column holds the change counters moved past it (tokens.ts `movedAfter`).
 */
export function tileStatement(table: TileTable, t: TileAt, opts: EngineTileOptions, carryAfter?: number): { text: string; values: unknown[] } {
  const { from, cols, srid, meta } = table
  const p = new Params()
  // The padded tile in the stored SRID, as service.ts's tileFrame reprojects it (edges sampled).
  const b = reprojectBbox(padBbox(tileBbox(t.z, t.x, t.y), opts.padding), 3857, srid)
  const s = p.add(srid)
  // Constants as scalar subqueries: computed once per run also in the prepared statement's generic plan.
  const box = `(SELECT ST_MakeEnvelope(${p.add(b[0])}, ${p.add(b[1])}, ${p.add(b[2])}, ${p.add(b[3])}, ${s}))`
  const cell = p.add((b[2] - b[0]) / (opts.grid * (1 + 2 * opts.padding)))
  const g = cols.geom
  // A layer of single points needs no box per feature: each is smaller than a cell, its cell is its position's.
  const points = /^POINTZ?$/.test(meta.geometryType)
  const small = `ST_XMax(${g}) - ST_XMin(${g}) < ${cell} AND ST_YMax(${g}) - ST_YMin(${g}) < ${cell}`
  const at = (lo: string, hi: string, origin: number) => points ? `floor((${lo === 'ST_XMin' ? 'ST_X' : 'ST_Y'}(${g}) - ${p.add(origin)}) / ${cell})`
    : `floor(((${lo}(${g}) + ${hi}(${g})) / 2 - ${p.add(origin)}) / ${cell})`
  const attrs = meta.fields.map((f, i) => attribute(f, i, cols))
  const inner = [`(${cols.id})::bigint AS __fid`, `${g} AS __g`, ...attrs.map((a) => a.inner)].join(', ')
  const thin = Math.floor(opts.thinAbove)
  const [z, x, y] = [p.add(t.z), p.add(t.x), p.add(t.y)]
  // In EPSG:3857 already: the stored geometry as it is (no ST_Transform, no lateral row per feature).
  const g3 = srid === 3857 ? '__g' : 'g3'
  let geom = g3
  if (opts.simplification > 0 && !/POINT/.test(meta.geometryType)) {
    // Clipped to the padded tile first, as our cut simplifies only what is left of a feature
    // (simplified whole, a line keeps other vertices near the edge); one inside it as it is.
    const padded = `(SELECT ST_TileEnvelope(${z}, ${x}, ${y}, margin => ${p.add(opts.padding)}))`
    geom = `ST_Simplify(CASE WHEN ${g3} @ ${padded} THEN ${g3} ELSE ST_ClipByBox2D(${g3}, ${padded}) END, ${
      p.add((opts.simplification * tileSize(t.z)) / opts.extent)})`
  }
  const extent = p.add(opts.extent)
  const text = `WITH hits AS MATERIALIZED (SELECT ${inner} FROM ${from} WHERE ${g} && ${box} LIMIT ${thin + 1}),
    full_tile AS MATERIALIZED (SELECT count(*) > ${thin} AS yes FROM hits),
    cells AS (SELECT min(${cols.id}) AS fid FROM ${from} WHERE (SELECT yes FROM full_tile) AND ${g} && ${box}${points ? '' : ` AND ${small}`}
      GROUP BY ${at('ST_XMin', 'ST_XMax', b[0])}, ${at('ST_YMin', 'ST_YMax', b[1])}),
    picked AS (SELECT * FROM hits WHERE NOT (SELECT yes FROM full_tile)${points ? '' : `
      UNION ALL SELECT ${inner} FROM ${from} WHERE (SELECT yes FROM full_tile) AND ${g} && ${box} AND NOT (${small})`}
      UNION ALL SELECT ${inner} FROM ${from} WHERE (SELECT yes FROM full_tile) AND ${cols.id} IN (SELECT fid FROM cells))
    SELECT ST_AsMVT(m, ${p.add(opts.layerName)}, ${extent}, '__g', '__fid')${carryAfter === undefined ? '' : `, ${movedAfter(p.add(carryAfter))}`} FROM (
      SELECT __fid, ${attrs.flatMap((a) => a.outer).join(', ')}${attrs.length ? ', ' : ''}ST_AsMVTGeom(${geom},
        (SELECT ST_TileEnvelope(${z}, ${x}, ${y})::box2d), ${extent}, ${p.add(Math.round(opts.extent * opts.padding))}, true) AS __g
      FROM picked${srid === 3857 ? '' : ` CROSS JOIN LATERAL (SELECT ST_Transform(ST_SetSRID(__g, ${s}), 3857) AS g3 OFFSET 0) r`}
      ) m`
  return { text, values: p.values }
}

/** Names of the prepared tile statements, by text: one per layer and option kind, so at most a few per layer. */
const NAMES = new Map<string, string>()
const MAX_NAMES = 1000

/**
 * The tile's bytes (none when no feature is in it), read by `client`. The statement is prepared
 * once per connection (a named statement: the text of a layer's tiles differs only in its
 * values), so a tile costs no parse and, after PostgreSQL's first five runs, no planning: planning
 * this statement took 0.5 ms, about what bare `ST_AsMVT` of a small tile takes in all.
 */
export async function engineTile(client: pg.ClientBase, table: TileTable, t: TileAt, opts: EngineTileOptions,
  carry?: PgPendingRefresh): Promise<Uint8Array> {
  const { text, values } = tileStatement(table, t, opts, carry?.after)
  let name = NAMES.get(text)
  if (!name && NAMES.size < MAX_NAMES) NAMES.set(text, name = `outpost_tile_${NAMES.size}`)
  const r = await client.query({ name, text, values, rowMode: 'array' })
  const row = r.rows[0] as unknown[] | undefined
  carry?.take((row?.[1] ?? []) as [string, number][])
  return (row?.[0] as Uint8Array | null | undefined) ?? new Uint8Array(0)
}
