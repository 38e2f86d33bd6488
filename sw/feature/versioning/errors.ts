/**
 * @module feature/versioning/errors
 * The versioning and transaction exceptions (reference §12), with the original's classes.
 */
import { ApiError, validationError } from '../../core/error.ts'

const V = 'nextgisweb.feature_layer.versioning.exception'
const T = 'nextgisweb.feature_layer.transaction.exception'

const versioningError = (name: string, title: string, message: string, data: Record<string, unknown> = {}) =>
  new ApiError(422, title, { message, data, exception: `${V}.${name}` })

export const versioningNotEnabled = () => versioningError('FVersioningNotEnabled', 'Feature versioning required',
  'Feature versioning is not enabled for this resource.')

export const epochRequired = () => versioningError('FVersioningEpochRequired', 'Epoch required',
  'The versioning epoch must be given with this request.')

export const epochMismatch = (epoch: number) => versioningError('FVersioningEpochMismatch', 'Epoch mismatch',
  'The versioning epoch does not match the current one: the layer history was reset.', { epoch })

export const versionOutOfRange = (version: number) => versioningError('FVersioningOutOfRange', 'Version out of range',
  `Version ${version} is out of the range of the layer's versions.`, { version })

export const invalidRange = () => versioningError('FVersioningInvalidRange', 'Invalid range',
  'The initial version must be lower than the target version.')

export const transactionNotFound = (tid: number) => new ApiError(404, 'Transaction not found', {
  message: `Transaction with id = ${tid} was not found.`, data: { transaction_id: tid }, exception: `${T}.TransactionNotFound` })

export const transactionOperationConflict = (seqnum: number) => new ApiError(409, 'Operation conflict in transaction', {
  message: `Another operation is stored under sequence number ${seqnum}.`, data: { seqnum },
  exception: `${T}.TransactionOperationConflict` })

export const transactionNotCommitted = () => new ApiError(422, 'Transaction not committed', {
  message: 'The transaction has not been committed yet.', exception: `${T}.TransactionNotCommitted` })

export const transactionsUnsupported = () =>
  validationError('This layer keeps no transactions (its class keeps no history).')

export const transactionCommitted = () =>
  validationError('The transaction is committed: its operations can no longer change.')
