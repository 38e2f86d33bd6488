import { describe, expect, it } from 'vitest'
import { fitSize, readExif, thumbnail, transpose } from '../../sw/feature/attachment/image.ts'
import { quotePlus } from '../../sw/core/text.ts'
import { exifSegment, imageSize, makeJpeg } from '../api/cases/attachment-images.ts'
import { base64 } from '../api/harness.ts'

describe('feature/attachment-image', () => {
  describe('readExif', () => {
    it('reads Orientation and DateTimeOriginal from the APP1 segment', () => {
      expect(readExif(makeJpeg(4, 4, { orientation: 6, dateTimeOriginal: '2024:05:01 10:00:00' })))
        .toEqual({ orientation: 6, timestamp: '2024-05-01T10:00:00' })
      expect(readExif(makeJpeg(4, 4, { dateTimeOriginal: '1999:12:31 23:59:59' }))).toEqual({ timestamp: '1999-12-31T23:59:59' })
    })

    it('returns {} without EXIF, for non-JPEG bytes and for a truncated block', () => {
      expect(readExif(makeJpeg(4, 4))).toEqual({})
      expect(readExif(new TextEncoder().encode('not a jpeg'))).toEqual({})
      const seg = exifSegment({ orientation: 3 }).subarray(0, 16)
      const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe1, 0, seg.length + 2, ...seg, 0xff, 0xd9])
      expect(readExif(jpeg)).toEqual({})
    })
  })

  describe('fitSize', () => {
    // Expected values follow PIL's Image.thumbnail rounding (checked against a Python port of it).
    it.each([
      [[32, 16], [8, 8], [8, 4]],
      [[100, 33], [50, 50], [50, 17]],
      [[33, 100], [50, 50], [16, 50]], // a tie: PIL keeps the floor
      [[640, 480], [100, 100], [100, 75]],
      [[1000, 1], [10, 10], [10, 1]],
      [[20, 10], [40, 40], [20, 10]],
      [[20, 10], [40, 5], [10, 5]],
    ] as const)('fits %j into %j as %j', (src, box, want) => {
      expect(fitSize(src[0], src[1], box[0], box[1])).toEqual(want)
    })
  })

  describe('transpose', () => {
    // A 2×1 image [A, B]; where each orientation puts the pixels once upright.
    const img = { width: 2, height: 1, data: new Uint8Array([1, 1, 1, 1, 2, 2, 2, 2]) }
    const firstBytes = (o: number) => {
      const t = transpose(img, o)
      return [t.width, t.height, ...Array.from({ length: 2 }, (_, i) => t.data[i * 4])]
    }
    it.each([
      [1, [2, 1, 1, 2]], [2, [2, 1, 2, 1]], [3, [2, 1, 2, 1]], [4, [2, 1, 1, 2]],
      [5, [1, 2, 1, 2]], [6, [1, 2, 1, 2]], [7, [1, 2, 2, 1]], [8, [1, 2, 2, 1]],
    ])('orientation %i', (o, want) => {
      expect(firstBytes(o)).toEqual(want)
    })
  })

  describe('thumbnail', () => {
    it('keeps JPEG as JPEG and rotates by EXIF', () => {
      const out = thumbnail(makeJpeg(40, 20, { orientation: 8 }), 'image/jpeg', 10, 10, false)
      expect(imageSize(base64(out), 'image/jpeg')).toEqual([5, 10])
    })
  })

  describe('quotePlus', () => {
    it('encodes as Python quote_plus does', () => {
      expect(quotePlus('a b/c~d_e.f-g')).toBe('a+b%2Fc~d_e.f-g')
      expect(quotePlus('фото.jpg')).toBe('%D1%84%D0%BE%D1%82%D0%BE.jpg')
      expect(quotePlus("x'y\"z%")).toBe('x%27y%22z%25')
    })
  })
})
