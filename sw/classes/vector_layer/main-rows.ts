// The main-database statements the synchronous class hooks (fields.ts) and the ingest's resource id run over a connection
// until the tree awaits its hooks and WP-A's tx.resources lands (issue 22); then they call `ctx.tx` and this bridge goes.
export { deleteField, duplicateField, fieldDatatype, fieldsOf, insertField, nextFieldIdx, updateField } from '../../sqlite/main/fields.ts'
export { reserveIds } from '../../sqlite/main/sequence.ts'
