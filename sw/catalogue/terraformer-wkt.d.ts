/** Types for `@terraformer/wkt`, which ships none: only the parser is used. */
declare module '@terraformer/wkt' {
  export function wktToGeoJSON(wkt: string): { type: string; coordinates?: unknown; geometries?: unknown[] }
}
