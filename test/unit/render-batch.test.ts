import { describe, expect, it } from 'vitest'
import { nodeCanvas } from '../../sw/host/node-canvas.ts'
import { PathBatcher, Pen, type PathSymbolizer } from '../../sw/render/batch.ts'
import type { Surface } from '../../sw/image/canvas.ts'
import type { PixelGeometry } from '../../sw/render/wkb-pixels.ts'

const square = (x: number, y: number, s: number, clockwise = true): Float64Array =>
  Float64Array.from(clockwise ? [x, y, x + s, y, x + s, y + s, x, y + s, x, y] : [x, y, x, y + s, x + s, y + s, x + s, y, x, y])
const polygon = (...rings: Float64Array[]): PixelGeometry => ({ kind: 'polygon', parts: rings, rings: [rings.length] })
const fill = (color: string): PathSymbolizer[] => [{ kind: 'fill', color }]

/** A 64 px surface whose context counts fills and path data calls (`svgPath` kept: Node's batches use it). */
function counted(): { surface: Surface; calls: { fill: number } } {
  const inner = nodeCanvas(64, 64)
  const calls = { fill: 0 }
  const ctx = new Proxy(inner.ctx, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target)
      if (prop === 'fill') return (...a: unknown[]) => { calls.fill++; return (v as (...a: unknown[]) => void).apply(target, a) }
      return typeof v === 'function' ? v.bind(target) : v
    },
    set: (target, prop, value) => Reflect.set(target, prop, value, target),
  })
  const surface: Surface = { width: 64, height: 64, ctx, putRgba: (p) => inner.putRgba(p), drawSurface: (o, a) => inner.drawSurface(o, a),
    rgba: () => inner.rgba(), png: () => inner.png(), svgPath: (d) => inner.svgPath!(d) }
  return { surface, calls }
}

const at = (s: Surface, x: number, y: number) => Array.from(s.rgba().subarray((y * 64 + x) * 4, (y * 64 + x) * 4 + 4))

describe('render/batch', () => {
  it('fills many disjoint features of one style with one call, pixels as drawn one by one', () => {
    const { surface, calls } = counted()
    const b = new PathBatcher(new Pen(surface.ctx), surface)
    const red = fill('rgba(255,0,0,1)')
    for (let i = 0; i < 8; i++) for (let j = 0; j < 8; j++) b.add(red, polygon(square(i * 8 + 1, j * 8 + 1, 5)))
    b.flush()
    expect(calls.fill).toBe(1)
    expect(at(surface, 3, 3)).toEqual([255, 0, 0, 255])
    expect(at(surface, 7, 7)[3]).toBe(0)
  })

  it('keeps the drawing order of overlapping features: the later one is on top', () => {
    const { surface, calls } = counted()
    const b = new PathBatcher(new Pen(surface.ctx), surface)
    const red = fill('rgba(255,0,0,1)'), blue = fill('rgba(0,0,255,1)')
    b.add(blue, polygon(square(0, 0, 20)))
    b.add(red, polygon(square(10, 10, 20)))
    // Blue again, over the red: were it batched with the first blue square, red would be on top.
    b.add(blue, polygon(square(20, 20, 20)))
    b.flush()
    expect(calls.fill).toBe(3)
    expect(at(surface, 15, 15)).toEqual([255, 0, 0, 255])
    expect(at(surface, 25, 25)).toEqual([0, 0, 255, 255])
  })

  it('keeps holes whatever the rings\' orientation, and touching features do not cancel out', () => {
    const { surface } = counted()
    const b = new PathBatcher(new Pen(surface.ctx), surface)
    const green = fill('rgba(0,255,0,1)')
    // A hole wound the same way as its shell, and a second feature meeting the first along x = 40.
    b.add(green, polygon(square(0, 0, 40, false), square(10, 10, 20, false)))
    b.add(green, polygon(square(40, 0, 20)))
    b.flush()
    expect(at(surface, 20, 20)[3]).toBe(0)
    expect(at(surface, 5, 5)).toEqual([0, 255, 0, 255])
    expect(at(surface, 45, 5)).toEqual([0, 255, 0, 255])
  })

  it('draws nothing for features entirely off the image', () => {
    const { surface, calls } = counted()
    const b = new PathBatcher(new Pen(surface.ctx), surface)
    b.add(fill('rgba(255,0,0,1)'), polygon(square(70, 70, 10)))
    b.add(fill('rgba(255,0,0,1)'), polygon(square(-30, 10, 20)))
    b.flush()
    expect(calls.fill).toBe(0)
  })
})
