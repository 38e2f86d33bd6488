/**
 * @module postgres/schema/ingest
 * The layers an ingest has loaded whose resource is not written yet (postgres/features/
 * tables.ts): every process's sweep leaves them alone, not only the ingesting process's. A row
 * whose process died is ignored after an hour, and the sweep then drops its table.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const ingestSchema: ComponentSchema = { component: 'ingest', steps: [
  `CREATE TABLE outpost_layer_pending (id BIGINT PRIMARY KEY, since TIMESTAMPTZ NOT NULL DEFAULT now());`,
] }
