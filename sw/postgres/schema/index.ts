/**
 * @module postgres/schema/index
 * Every component's part of the PostgreSQL schema, in the order they run (as sqlite/migrate.ts:
 * auth's principals before the tree, the ACL's last).
 */
import type { ComponentSchema } from '../../port/schema.ts'
import { portSchema } from './port.ts'
import { resourcesSchema } from './resources.ts'
import { fieldsSchema } from './fields.ts'
import { journalSchema } from './journal.ts'
import { aclSchema } from './acl.ts'
import { authSchema } from './auth.ts'
import { uploadsSchema } from './uploads.ts'
import { filesSchema } from './files.ts'
import { catalogueSchema } from './catalogue.ts'
import { ingestSchema } from './ingest.ts'

export const PG_SCHEMA: readonly ComponentSchema[] = [
  portSchema,
  authSchema,
  resourcesSchema,
  fieldsSchema,
  journalSchema,
  uploadsSchema,
  filesSchema,
  aclSchema,
  catalogueSchema,
  ingestSchema,
]
