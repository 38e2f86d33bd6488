/**
 * @module style/default-style
 * The style a vector layer made in the app gets, unless the person unticks it in the create
 * form: the style form's default for the layer's geometry, so it opens in the form editor.
 */
import { ref } from 'vue'
import { createStyle } from '../api/render.ts'
import { defaultForm, formToXml, geometryOf } from './style-form.ts'

/** The create form's "Create a default style" box (ticked unless the person unticks it). */
export const withDefaultStyle = ref(true)

export async function createDefaultStyle(id: number, body: Record<string, unknown>): Promise<void> {
  if (!withDefaultStyle.value) return
  const type = (body.vector_layer as { geometry_type?: string } | undefined)?.geometry_type ?? 'POINT'
  await createStyle(id, 'Default style', formToXml(defaultForm(geometryOf(type), id)))
}
