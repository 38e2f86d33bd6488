import { describe, expect, it } from 'vitest'
import { LabelLayer } from '../../sw/render/labels.ts'
import type { Ctx2D } from '../../sw/image/canvas.ts'
import type { LabelStyle } from '../../sw/render/style.ts'

/** A context that draws nothing: widths are 0.6 em per character less 5% (as kerning would take), calls are counted. */
function fakeCtx() {
  const drawn: { text: string; x: number; y: number }[] = []
  let wholeMeasures = 0
  const ctx = {
    font: '9px test', save() {}, restore() {}, strokeText() {},
    fillText(text: string, x: number, y: number) { drawn.push({ text, x, y }) },
    measureText(text: string) {
      if ([...text].length > 1) wholeMeasures++
      return { width: [...text].length * 9 * 0.6 * ([...text].length > 1 ? 0.95 : 1) }
    },
  } as unknown as Ctx2D
  return { ctx, drawn, measures: () => wholeMeasures }
}

const style = { size: 9, color: '#000', bold: false, italic: false, halo: { color: '#fff', width: 2 },
  position: ['c', 'c'], offset: [0, 0] } as unknown as LabelStyle

describe('label placement', () => {
  it('a crowded tile measures few texts whole and places exactly the labels a plain greedy placement does', () => {
    const { ctx, drawn, measures } = fakeCtx()
    const layer = new LabelLayer(ctx, 256, 256)
    // 10,000 candidates every 4 px over a square wider than the tile (labels beyond its edge too).
    const candidates: { text: string; x: number; y: number }[] = []
    for (let i = 0; i < 10_000; i++) candidates.push({ text: `P${i}`, x: -72 + (i % 100) * 4, y: -72 + Math.floor(i / 100) * 4 })
    for (const c of candidates) layer.add(c.text, style, c.x, c.y)
    expect(layer.draw()).toBe(true)

    // The reference: every candidate measured, in order, kept when inside the tile and clear of those kept.
    const kept: number[][] = []
    const expected: string[] = []
    for (const c of candidates) {
      const w = c.text.length * 9 * 0.6 * 0.95
      const b = [c.x - w / 2 - 2, c.y - 4.5 - 2, c.x + w / 2 + 2, c.y + 4.5 + 2]
      if (b[2]! < 0 || b[0]! > 256 || b[3]! < 0 || b[1]! > 256) continue
      if (kept.some((o) => b[0]! < o[2]! && b[2]! > o[0]! && b[1]! < o[3]! && b[3]! > o[1]!)) continue
      kept.push(b)
      expected.push(c.text)
    }
    expect(drawn.map((d) => d.text)).toEqual(expected)
    expect(expected.length).toBeGreaterThan(50)
    // Whole texts measured: about one per label placed, not one per candidate.
    expect(measures()).toBeLessThan(expected.length * 3)
  })

  it('texts with combining marks are still measured whole and placed', () => {
    const { ctx, drawn } = fakeCtx()
    const layer = new LabelLayer(ctx, 256, 256)
    layer.add('Cafe\u0301', style, 128, 128)
    layer.add('Cafe\u0301', style, 130, 128)
    layer.draw()
    expect(drawn.map((d) => d.text)).toEqual(['Cafe\u0301'])
  })
})
