/**
 * @module components/resource/create-forms
 * The class parts of the "New" form. A class listed here gets its own inputs (a component
 * with a `v-model` of the class members it adds to the create request); every other class in
 * the server's blueprint is created by the generic form, with its names only. Giving a class
 * a form of its own is one component and one line here.
 */
import type { Component } from 'vue'
import ResourceCreateLookupTable from './ResourceCreateLookupTable.vue'
import ResourceCreateVectorLayer from './ResourceCreateVectorLayer.vue'
import ResourceCreateRemoteConnection from './ResourceCreateRemoteConnection.vue'
import ResourceCreateWmsConnection from './ResourceCreateWmsConnection.vue'
import ResourceCreateWmsLayer from './ResourceCreateWmsLayer.vue'
import ResourceCreateWmsService from './ResourceCreateWmsService.vue'
import { createDefaultRasterStyle, createDefaultStyle } from '../../style/default-style.ts'

export const CREATE_FORMS: Readonly<Record<string, Component>> = {
  vector_layer: ResourceCreateVectorLayer,
  lookup_table: ResourceCreateLookupTable,
  remote_connection: ResourceCreateRemoteConnection,
  wmsclient_connection: ResourceCreateWmsConnection,
  wmsclient_layer: ResourceCreateWmsLayer,
  wmsserver_service: ResourceCreateWmsService,
}

/** What follows a class's creation (the new id and the body sent): a new layer gets its default style. */
export const AFTER_CREATE: Readonly<Record<string, (id: number, body: Record<string, unknown>) => Promise<void>>> = {
  vector_layer: createDefaultStyle,
  raster_layer: createDefaultRasterStyle,
}
