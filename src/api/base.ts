/**
 * @module api/base
 * Where the API is: under the app's own directory, so the built app runs from any path of a
 * static host (`/demo/` serves `/demo/api/…`, answered by the worker registered with that
 * scope). The app has no client-side routes, so the page's directory is the app's.
 */

/** The app's directory, `/` at the site root or e.g. `/demo/`. */
// (`/` where there is no page: unit tests import the app's modules in Node.)
export const APP_BASE = typeof document === 'undefined' ? '/' : new URL('.', document.baseURI).pathname

/** `/api/…` under the app's directory; any other URL (another server's) as it is. */
export function apiUrl(path: string): string {
  return path.startsWith('/api/') ? APP_BASE + path.slice(1) : path
}
