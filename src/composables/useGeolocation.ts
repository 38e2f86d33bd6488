/**
 * @module composables/useGeolocation
 * The device position from the Geolocation API: followed while the person asks for it (the
 * map shows it with its accuracy circle), or read once for "use my position".
 */
import { readonly, ref, shallowRef } from 'vue'

export interface Position {
  lon: number
  lat: number
  /** Radius of the 95% circle in metres, as the browser reports it. */
  accuracy: number
  time: number
}

const position = shallowRef<Position | null>(null)
const following = ref(false)
const error = ref('')
let watchId: number | null = null

const OPTIONS: PositionOptions = { enableHighAccuracy: true, maximumAge: 10_000, timeout: 20_000 }

function toPosition(p: GeolocationPosition): Position {
  return { lon: p.coords.longitude, lat: p.coords.latitude, accuracy: p.coords.accuracy, time: p.timestamp }
}

function describe(err: GeolocationPositionError): string {
  if (err.code === err.PERMISSION_DENIED) return 'Location access was denied. Allow it in the browser settings.'
  if (err.code === err.TIMEOUT) return 'The position could not be found in time.'
  return 'The position is not available.'
}

function supported(): boolean {
  return typeof navigator !== 'undefined' && !!navigator.geolocation
}

function follow(): void {
  if (watchId !== null) return
  if (!supported()) { error.value = 'This device cannot tell its position.'; return }
  error.value = ''
  following.value = true
  watchId = navigator.geolocation.watchPosition(
    (p) => { position.value = toPosition(p); error.value = '' },
    (err) => { error.value = describe(err) },
    OPTIONS)
}

function stop(): void {
  if (watchId !== null) navigator.geolocation.clearWatch(watchId)
  watchId = null
  following.value = false
}

/**
 * The current position, read once (and shown on the map like a followed one). While the
 * position is followed, the latest fix of the watch is the current position: the browser
 * reports every change to the watch, and a one-shot request beside a running high-accuracy
 * watch is answered only by the next fix once the last one is older than `maximumAge` (a
 * device standing still may send none, and the button would say "Locating…" until the
 * timeout).
 */
function locate(): Promise<Position> {
  if (watchId !== null && position.value && !error.value) return Promise.resolve(position.value)
  if (!supported()) return Promise.reject(new Error('This device cannot tell its position.'))
  error.value = ''
  return new Promise((resolve, reject) => {
    navigator.geolocation.getCurrentPosition(
      (p) => { position.value = toPosition(p); resolve(position.value) },
      (err) => { error.value = describe(err); reject(new Error(error.value)) },
      OPTIONS)
  })
}

export function useGeolocation() {
  return { position, following: readonly(following), error: readonly(error), follow, stop, locate }
}
