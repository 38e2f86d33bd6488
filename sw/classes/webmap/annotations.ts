/**
 * @module classes/webmap/annotations
 * A web map's annotations (reference ngw-services §1.6): shapes in EPSG:3857 with a style and
 * a description, public or private. What the original lacks and we add (docs/webmaps.md):
 * - a private annotation is seen only by its author and by `annotation_manage`; another
 *   person's private annotation is a 404, as if it did not exist (the original serves it);
 * - only the author or `annotation_manage` may change or delete an annotation, public ones
 *   included (the original lets anyone with `annotation_write` do either): others get 403;
 * - the author is kept for public annotations too, so `own` is true for the author of a
 *   public one (the original stores no author for those and answers `own: false`);
 * - an unknown id is a 404 and bad WKT a 422 (the original: 500).
 * - a PUT keeps what it does not send (the original clears `description` and `style`);
 *   `public` cannot be changed (the original ignores it silently; we answer 422 when it differs).
 * Pure functions over the stored document; routes.ts reads and writes it.
 */
import { ApiError, forbidden, validationError } from '../../core/error.ts'
import { expectKeys, expectKind, expectObject } from '../../core/validate.ts'
import { parseWkt, toWkt } from '../../geo/wkt.ts'
import type { Annotation, WebMapData } from './types.ts'

/** A map is for people: past this many annotations, a new one is refused (the document is one row). */
export const MAX_ANNOTATIONS = 10_000

/** Who asks, and what they may do in the `webmap` scope of the map. */
export interface Annotator { userId: number; manage: boolean }

export const annotationNotFound = (id: number) => new ApiError(404, 'Annotation not found', {
  message: `Annotation id = ${id} was not found in this web map.`, exception: 'nextgisweb.webmap.exception.AnnotationNotFound' })

const visible = (a: Annotation, who: Annotator) => a.public || who.manage || a.user_id === who.userId

/** The annotations `who` may see, as the original lists them. */
export function listFor(d: WebMapData, who: Annotator, names: ReadonlyMap<number, string>) {
  return d.annotations.filter((a) => visible(a, who)).map((a) => out(a, who, names))
}

/** One annotation `who` may see; 404 otherwise. */
export function find(d: WebMapData, id: number, who: Annotator): Annotation {
  const a = d.annotations.find((x) => x.id === id)
  if (!a || !visible(a, who)) throw annotationNotFound(id)
  return a
}

/** The read shape; managers see the author of private ones (`user_id`, `user`), as the original shows them. */
export function out(a: Annotation, who: Annotator, names: ReadonlyMap<number, string>) {
  const base = { id: a.id, geom: a.geom, public: a.public, own: a.user_id === who.userId, description: a.description, style: a.style }
  return who.manage && !a.public ? { ...base, user_id: a.user_id, user: names.get(a.user_id) ?? null } : base
}

function geomOf(v: unknown): string {
  const s = expectKind<string>('str', v, '$.geom')
  try {
    return toWkt(parseWkt(s))
  } catch (err) {
    throw validationError(`Invalid geometry: ${(err as Error).message} - at \`$.geom\``, { location: ['body', 'geom'] })
  }
}

const descriptionOf = (v: unknown) => expectKind<string | null>('str', v, '$.description', true)
const styleOf = (v: unknown) => (v === null ? null : expectObject(v, '$.style'))
const KEYS = ['geom', 'public', 'description', 'style', 'id', 'own', 'user_id', 'user']

/** A new annotation from a POST body; returns the document with it and its id. */
export function create(d: WebMapData, body: Record<string, unknown>, userId: number): { doc: WebMapData; id: number } {
  expectKeys(body, KEYS, '$')
  // Both required, as in the original (5.4 and HEAD); at the body's root msgspec names no place.
  if (body.geom === undefined) throw validationError('Object missing required field `geom`')
  if (body.public === undefined) throw validationError('Object missing required field `public`')
  if (d.annotations.length >= MAX_ANNOTATIONS) throw validationError(`A web map holds at most ${MAX_ANNOTATIONS} annotations.`)
  const a: Annotation = {
    id: d.next_id, geom: geomOf(body.geom),
    public: expectKind<boolean>('bool', body.public, '$.public'),
    description: body.description === undefined ? null : descriptionOf(body.description),
    style: body.style === undefined ? null : styleOf(body.style),
    user_id: userId,
  }
  return { doc: { ...d, annotations: [...d.annotations, a], next_id: d.next_id + 1 }, id: a.id }
}

/** Refuses a change by someone who is neither the author nor a manager. */
function mayChange(a: Annotation, who: Annotator): void {
  if (!who.manage && a.user_id !== who.userId) {
    throw forbidden(`Only the author of annotation ${a.id} or someone with the 'annotation_manage' permission may change or delete it.`)
  }
}

/** Annotation `id` changed by a PUT body: what is not sent is kept. */
export function update(d: WebMapData, id: number, body: Record<string, unknown>, who: Annotator): WebMapData {
  const a = find(d, id, who)
  mayChange(a, who)
  expectKeys(body, KEYS, '$')
  if (body.public !== undefined && expectKind<boolean>('bool', body.public, '$.public') !== a.public) {
    throw validationError('Whether an annotation is public cannot be changed; make a new one - at `$.public`')
  }
  const next: Annotation = {
    ...a,
    geom: body.geom === undefined ? a.geom : geomOf(body.geom),
    description: body.description === undefined ? a.description : descriptionOf(body.description),
    style: body.style === undefined ? a.style : styleOf(body.style),
  }
  return { ...d, annotations: d.annotations.map((x) => (x.id === id ? next : x)) }
}

export function remove(d: WebMapData, id: number, who: Annotator): WebMapData {
  mayChange(find(d, id, who), who)
  return { ...d, annotations: d.annotations.filter((x) => x.id !== id) }
}
