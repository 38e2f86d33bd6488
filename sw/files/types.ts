/**
 * @module files/types
 * The stored-file capabilities a resource class provides, so that the files component
 * serves them (`files/routes.ts`), whatever the class: a raster layer's GeoTIFF, a file
 * bucket's files. The registry hands each capability its resource's ref, its class checked.
 */
import type { Store } from '../store/store.ts'
import type { Principal } from '../auth/types.ts'
import type { ResourceRef } from '../resource/types.ts'

/** A file kept in the store in chunks (`files/service.ts`). */
export interface StoredFile { key: string; size: number }

/** A file of a bucket: a stored file with its name and media type. */
export interface BucketFile extends StoredFile { name: string; mime_type: string }

/** A class whose resources keep one raster file (a raster layer's cloud-optimised GeoTIFF). */
export interface RasterFileProvider { rasterFile(ref: ResourceRef): Promise<StoredFile | undefined> }

/** A class whose resources keep named files (a file bucket). */
export interface FileBucketProvider { bucketFiles(ref: ResourceRef): Promise<BucketFile[] | undefined> }

/** What the files component finds through the class registry, by resource id. */
export interface StoredFiles {
  /** `undefined` when there is no such resource or its class keeps no raster file. */
  rasterFile(id: number): Promise<StoredFile | undefined>
  /** `undefined` when there is no such resource or its class is no file bucket. */
  bucketFiles(id: number): Promise<BucketFile[] | undefined>
}

export interface FilesVariables {
  /** `data.blobs` of the data port (typed by the store's half, since port.ts imports this file). */
  services: { data: { blobs: Pick<Store, 'getBlob'> }; classes: StoredFiles }
  user: Principal
}
