/**
 * The XML style dialect turned into a MapServer mapfile, as the original did before handing
 * it to MapServer (tags are mapfile keywords; colours are red/green/blue attributes), so
 * MapServer draws the same data with the same style in the render benchmark.
 */
import { execSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { parseXml, type XmlNode } from '../../sw/render/xml.ts'

/** Installs Debian's mapserver-bin (`map2img`) when it is missing. */
export function ensureMapserver(): void {
  if (existsSync('/usr/bin/map2img')) return
  console.log('installing mapserver-bin with apt-get…')
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mapserver-bin', { stdio: 'inherit' })
}

/** Keywords whose value is a quoted string in a mapfile. */
const QUOTED = new Set(['name', 'text', 'symbol', 'font', 'labelitem', 'classitem', 'title', 'group', 'data', 'image'])
/** Keywords whose value is a list closed by END. */
const LISTS = new Set(['points', 'pattern'])

function line(n: XmlNode, indent: string): string {
  const key = n.name.toUpperCase()
  if (n.children.length) return `${indent}${key}\n${n.children.map((c) => line(c, indent + '  ')).join('\n')}\n${indent}END`
  if (n.attrs.red !== undefined) return `${indent}${key} ${n.attrs.red} ${n.attrs.green} ${n.attrs.blue}`
  if (n.attrs.x !== undefined) return `${indent}${key} ${n.attrs.x} ${n.attrs.y}`
  const t = n.text.trim()
  if (LISTS.has(n.name)) return `${indent}${key} ${t} END`
  if (QUOTED.has(n.name)) return `${indent}${key} "${t.replace(/^std:/, '').replace(/"/g, '\\"')}"`
  return `${indent}${key} ${t}`
}

export interface MapfileOptions {
  /** OGR data source and layer, or a raster file. */
  data: string
  type: 'polygon' | 'line' | 'point' | 'raster'
  fontset: string
  /** The map's size in pixels (map2img's `-s` overrides it). @default 256 */
  size?: number
}

/** A mapfile drawing `xml` (a `<map>` style) over `data` in EPSG:3857 into a transparent RGBA PNG. */
export function toMapfile(xml: string, o: MapfileOptions): string {
  const map = parseXml(xml)
  const layer = map.children.find((c) => c.name === 'layer')!
  const symbols = map.children.filter((c) => c.name === 'symbol').map((s) => line(s, '  ')).join('\n')
  const body = layer.children.map((c) => line(c, '    ')).join('\n')
  const source = o.type === 'raster' ? `    DATA "${o.data}"\n    PROCESSING "RESAMPLE=BILINEAR"`
    : `    CONNECTIONTYPE OGR\n    CONNECTION "${o.data}"\n    DATA "features"\n    PROCESSING "LABEL_NO_CLIP=ON"`
  return `MAP
  SIZE ${o.size ?? 256} ${o.size ?? 256}
  EXTENT -20037508.34 -20037508.34 20037508.34 20037508.34
  UNITS METERS
  PROJECTION "init=epsg:3857" END
  FONTSET "${o.fontset}"
  IMAGETYPE png
  OUTPUTFORMAT
    NAME png
    DRIVER AGG/PNG
    MIMETYPE "image/png"
    IMAGEMODE RGBA
    EXTENSION "png"
    TRANSPARENT ON
  END
${symbols}
  LAYER
    NAME main
    TYPE ${o.type.toUpperCase()}
    STATUS DEFAULT
    PROJECTION "init=epsg:3857" END
${source}
${body}
  END
END
`
}
