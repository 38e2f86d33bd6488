/**
 * @module render/markers
 * Point symbols: the well-known shapes of both dialects and MapServer's vector symbols,
 * traced as a path of the given diameter around (x, y).
 */
import type { Ctx2D } from '../image/canvas.ts'
import type { MarkerShape } from './style.ts'

/** Unit outlines (radius 1, y down) of the regular shapes. */
function polygon(n: number, rot: number, inner?: number): number[] {
  const pts: number[] = []
  const steps = inner ? n * 2 : n
  for (let i = 0; i < steps; i++) {
    const r = inner && i % 2 ? inner : 1
    const a = rot + (i * Math.PI * 2) / steps
    pts.push(Math.cos(a) * r, Math.sin(a) * r)
  }
  return pts
}

const UP = -Math.PI / 2
const OUTLINES: Record<string, number[]> = {
  square: [-1, -1, 1, -1, 1, 1, -1, 1],
  triangle: polygon(3, UP),
  diamond: polygon(4, UP),
  pentagon: polygon(5, UP),
  hexagon: polygon(6, 0),
  star: polygon(5, UP, 0.4),
  arrow: [0, -1, 0.6, 0.2, 0.2, 0.2, 0.2, 1, -0.2, 1, -0.2, 0.2, -0.6, 0.2],
}

/** Whether a shape is drawn with a stroke only (it has no area). */
export function isLinear(shape: MarkerShape): boolean {
  return shape === 'cross' || shape === 'x' || shape === 'line' || (typeof shape === 'object' && !shape.filled)
}

/** Traces `shape` of diameter `size` px centred on (x, y), rotated `angle` degrees clockwise. */
export function traceMarker(ctx: Ctx2D, shape: MarkerShape, x: number, y: number, size: number, angle: number): void {
  const r = size / 2
  const a = (angle * Math.PI) / 180
  const cos = Math.cos(a), sin = Math.sin(a)
  const put = (ux: number, uy: number, move: boolean) => {
    const px = x + (ux * cos - uy * sin) * r, py = y + (ux * sin + uy * cos) * r
    if (move) ctx.moveTo(px, py)
    else ctx.lineTo(px, py)
  }
  ctx.beginPath()
  if (shape === 'circle') {
    ctx.arc(x, y, r, 0, Math.PI * 2)
    return
  }
  if (shape === 'cross') { put(-1, 0, true); put(1, 0, false); put(0, -1, true); put(0, 1, false); return }
  if (shape === 'x') { put(-1, -1, true); put(1, 1, false); put(-1, 1, true); put(1, -1, false); return }
  if (shape === 'line') { put(0, -1, true); put(0, 1, false); return }
  if (typeof shape === 'object') {
    // MapServer vector symbols: coordinates scaled so the symbol is `size` tall; -99 -99 lifts the pen.
    // A loop, not Math.min(...xs): spreading a long array overflows the stack.
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity
    for (const [px, py] of shape.points) {
      if (px === -99 && py === -99) continue
      minX = Math.min(minX, px!); maxX = Math.max(maxX, px!); minY = Math.min(minY, py!); maxY = Math.max(maxY, py!)
    }
    const h = Math.max(maxY - minY, 1e-9)
    const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2
    let move = true
    for (const [px, py] of shape.points) {
      if (px === -99 && py === -99) { move = true; continue }
      put(((px! - cx) * 2) / h, ((py! - cy) * 2) / h, move)
      move = false
    }
    if (shape.filled) ctx.closePath()
    return
  }
  const o = OUTLINES[shape]!
  for (let i = 0; i < o.length; i += 2) put(o[i]!, o[i + 1]!, i === 0)
  ctx.closePath()
}
