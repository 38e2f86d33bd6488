/**
 * @module style/default-style
 * The style a vector layer made in the app gets, unless the person unticks it in the create
 * form: the style form's default for the layer's geometry, so it opens in the form editor.
 * A raster layer gets its raster style with it, as the original's UI does (the API itself, as
 * the original's, creates none): without one the map cannot draw it.
 */
import { ref } from 'vue'
import { createRasterStyle, createStyle } from '../api/render.ts'
import { defaultForm, formToXml, geometryOf } from './style-form.ts'

/** The create form's "Create a default style" box (ticked unless the person unticks it). */
export const withDefaultStyle = ref(true)

export async function createDefaultStyle(id: number, body: Record<string, unknown>): Promise<void> {
  if (!withDefaultStyle.value) return
  const type = (body.vector_layer as { geometry_type?: string } | undefined)?.geometry_type ?? 'POINT'
  await createStyle(id, 'Default style', formToXml(defaultForm(geometryOf(type), id)))
}

/** A new raster layer's style, named after the layer. */
export async function createDefaultRasterStyle(id: number, body: Record<string, unknown>): Promise<void> {
  const name = (body.resource as { display_name?: string } | undefined)?.display_name
  await createRasterStyle(id, name || 'Raster style')
}
