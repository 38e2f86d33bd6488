/**
 * @module postgres/catalogue
 * The catalogue's store (`CatalogueStore`) on PostgreSQL: tables of its own (`catalogue_*`,
 * schema/catalogue.ts), answering as sqlite/catalogue.ts does (records by id, icons as bytes,
 * `undefined` for what is not there). A replace is one transaction under the catalogue's own
 * advisory lock (two imports from two processes run one after the other; the main data's
 * writers never wait for an import), and moves the 'catalogue' change counter inside it, so
 * every process re-reads its index on its next request. Rows go in set-based (`unnest`), one
 * statement per table whatever the size of the import.
 */
import type pg from 'pg'
import type { CatalogueStore, IconHead } from '../catalogue/repository.ts'
import type { Detail } from '../catalogue/records.ts'
import type { Frames } from '../port/frames.ts'
import type { PgConn } from './conn.ts'
import type { PgTokens } from './tokens.ts'
import { PgUnits } from './uow.ts'

/** The advisory lock key of catalogue replaces (0x6f7574705f6361, 'outp_ca'). */
const CATALOGUE_LOCK = '31372865376838497'

/** `bytea` comes back as a Buffer; the components get plain bytes, as from SQLite. */
const bytes = (b: Buffer | null | undefined) => (b ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : undefined)

const records = (rows: { record: string }[]) => rows.map((r) => JSON.parse(r.record) as Detail)

export function pgCatalogue(pool: pg.Pool, tokens: PgTokens, frames?: Frames): CatalogueStore {
  const units = new PgUnits(pool, 'catalogue', frames, CATALOGUE_LOCK)
  const asConn = (conn: PgConn) => conn
  return {
    source: async () => (await pool.query<{ source: 'default' | 'import' }>('SELECT source FROM catalogue_meta')).rows[0]?.source,
    load: () => units.read(asConn, async (db) => ({
      services: records(await db.rows('SELECT record FROM catalogue_geoservice ORDER BY id')),
      statuses: records(await db.rows('SELECT record FROM catalogue_geoservice_status ORDER BY id')),
      icons: await db.rows<IconHead>('SELECT id, guid, name FROM catalogue_icon ORDER BY id'),
    })),
    replace: (data, source) => units.write(asConn, async (db) => {
      await db.exec('DELETE FROM catalogue_geoservice_status; DELETE FROM catalogue_geoservice; DELETE FROM catalogue_icon')
      const { icons, services, statuses } = data
      await db.exec(`INSERT INTO catalogue_icon (id, guid, name, png)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bytea[])`,
      [icons.map((i) => i.id), icons.map((i) => i.guid), icons.map((i) => i.name), icons.map((i) => i.png)])
      await db.exec('INSERT INTO catalogue_geoservice (id, record) SELECT * FROM unnest($1::bigint[], $2::text[])',
        [services.map((s) => s.id as number), services.map((s) => JSON.stringify(s))])
      await db.exec(`INSERT INTO catalogue_geoservice_status (id, geoservice, record)
        SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[])`,
      [statuses.map((s) => s.id as number), statuses.map((s) => s.geoservice as number), statuses.map((s) => JSON.stringify(s))])
      // The default icon stays through an import without one, and goes with a default fill (as on SQLite).
      await db.exec(`INSERT INTO catalogue_meta (one, source, default_icon) VALUES (TRUE, $1, $2)
        ON CONFLICT (one) DO UPDATE SET source = excluded.source,
          default_icon = CASE WHEN excluded.default_icon IS NOT NULL OR excluded.source = 'default' THEN excluded.default_icon
                              ELSE catalogue_meta.default_icon END`,
      [source, data.defaultIcon ?? null])
    }, (conn) => tokens.move(conn, ['catalogue'])),
    icon: async (id) => bytes(id === 'default'
      ? (await pool.query<{ b: Buffer | null }>('SELECT default_icon AS b FROM catalogue_meta')).rows[0]?.b
      : (await pool.query<{ b: Buffer }>('SELECT png AS b FROM catalogue_icon WHERE id = $1', [id])).rows[0]?.b),
  }
}
