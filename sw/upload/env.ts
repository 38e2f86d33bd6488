/**
 * @module upload/env
 * What the upload functions use of the app's services (kept apart from upload/types.ts, which
 * the repository imports, so that the port's types do not form a circle).
 */
import type { Platform } from '../platform/platform.ts'
import type { DataPort } from '../port/port.ts'

/** What the upload functions use of the app's services. */
export interface UploadServices {
  platform: Platform
  /** Records through units of work, bytes through its blobs. */
  data: Pick<DataPort, 'unitOfWork' | 'read' | 'blobs'>
}
