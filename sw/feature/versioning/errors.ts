/**
 * @module feature/versioning/errors
 * The versioning and transaction exceptions (reference §12), with the original's classes.
 */
import { ApiError, validationError } from '../../core/error.ts'

const V = 'nextgisweb.feature_layer.versioning.exception'
const T = 'nextgisweb.feature_layer.transaction.exception'

const versioningError = (name: string, title: string, message?: string) =>
  new ApiError(422, title, { message, exception: `${V}.${name}` })

export const versioningNotEnabled = () => versioningError('FVersioningNotEnabled', 'Feature versioning required',
  'Feature versioning is not enabled for this resource.')

// The original raises the epoch, range and transaction errors bare: title and class, no
// message and no data. Clients tell them apart by `exception` (our sync client does too).
export const epochRequired = () => versioningError('FVersioningEpochRequired', 'Epoch required')

export const epochMismatch = () => versioningError('FVersioningEpochMismatch', 'Epoch mismatch')

export const versionOutOfRange = () => versioningError('FVersioningOutOfRange', 'Version out of range')

export const invalidRange = () => versioningError('FVersioningInvalidRange', 'Invalid range')

export const transactionNotFound = () => new ApiError(404, 'Transaction not found', { exception: `${T}.TransactionNotFound` })

export const transactionOperationConflict = (seqnum: number) => new ApiError(409, 'Operation conflict in transaction', {
  message: `Another operation is stored under sequence number ${seqnum}.`, data: { seqnum },
  exception: `${T}.TransactionOperationConflict` })

export const transactionNotCommitted = () => new ApiError(422, 'Transaction not committed', { exception: `${T}.TransactionNotCommitted` })

export const transactionsUnsupported = () =>
  validationError('This layer keeps no transactions (its class keeps no history).')

export const transactionCommitted = () =>
  validationError('The transaction is committed: its operations can no longer change.')
