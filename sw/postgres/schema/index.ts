/**
 * @module postgres/schema/index
 * Every component's part of the PostgreSQL schema, in the order they run (as sqlite/migrate.ts:
 * auth's principals before the tree, the ACL's last).
 */
import type { ComponentSchema } from '../../port/schema.ts'
import { portSchema } from './port.ts'
import { journalSchema } from './journal.ts'
import { catalogueSchema } from './catalogue.ts'

export const PG_SCHEMA: readonly ComponentSchema[] = [portSchema, journalSchema, catalogueSchema]
