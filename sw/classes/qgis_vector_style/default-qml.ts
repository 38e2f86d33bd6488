/**
 * @module classes/qgis_vector_style/default-qml
 * The QML a QGIS style gets when created without a file (the original's "default" format):
 * a single symbol in a palette colour for the layer's geometry.
 */
import type { GeometryKind } from '../../render/style.ts'
import { paletteColor } from '../../render/palette.ts'

const opt = (name: string, value: string) => `<Option name="${name}" value="${value}" type="QString"/>`

export function defaultQml(geom: GeometryKind, seed: number): string {
  const color = `${paletteColor(seed).join(',')},255`
  const layer = geom === 'point'
    ? `<layer class="SimpleMarker" enabled="1" pass="0" locked="0"><Option type="Map">${opt('name', 'circle')}${opt('color', color)}${opt('outline_color', '64,64,64,255')}${opt('outline_width', '0.26')}${opt('size', '2')}</Option></layer>`
    : geom === 'line'
      ? `<layer class="SimpleLine" enabled="1" pass="0" locked="0"><Option type="Map">${opt('line_color', color)}${opt('line_width', '0.5')}</Option></layer>`
      : `<layer class="SimpleFill" enabled="1" pass="0" locked="0"><Option type="Map">${opt('color', color)}${opt('style', 'solid')}${opt('outline_color', '64,64,64,255')}${opt('outline_width', '0.26')}</Option></layer>`
  const type = geom === 'point' ? 'marker' : geom === 'line' ? 'line' : 'fill'
  return `<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>
<qgis version="3.28.0" styleCategories="Symbology|Labeling">
  <renderer-v2 type="singleSymbol" symbollevels="0" enableorderby="0" forceraster="0">
    <symbols>
      <symbol type="${type}" name="0" alpha="1" clip_to_extent="1" force_rhr="0">
        ${layer}
      </symbol>
    </symbols>
  </renderer-v2>
  <layerOpacity>1</layerOpacity>
</qgis>
`
}
