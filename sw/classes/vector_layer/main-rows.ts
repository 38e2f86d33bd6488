// The main-database statements the class hooks (fields.ts) still run over `ctx.db`; the hooks now get `ctx.tx`
// (issue 22 WP-A), so they move to `ctx.tx.fields` and this bridge goes.
export { deleteField, duplicateField, fieldDatatype, fieldsOf, insertField, nextFieldIdx, updateField } from '../../sqlite/main/fields.ts'
