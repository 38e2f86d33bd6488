/**
 * @module core/hops
 * How deep a request is in a chain of requests this server sends to a WMS that is itself (or
 * another server that asks back): a layer of a WMS service may be a WMS client layer whose
 * remote is that same service, and each map drawn would then ask for itself without end. A
 * request the server sends carries its depth in `X-Outpost-Hops`; the request that arrives
 * with it is noted by its signal (the one every route passes down to what it calls), and a
 * request `MAX_HOPS` deep sends no further one.
 */

/** The header a request sent to a WMS carries its depth in. */
export const HOPS_HEADER = 'x-outpost-hops'

/** Deepest chain of WMS requests: a map of a map of a map of a map. */
export const MAX_HOPS = 4

const depths = new WeakMap<AbortSignal, number>()

/** Notes the depth `request` arrived with (1 … MAX_HOPS; anything else is no depth). */
export function noteHops(request: Request): void {
  const v = request.headers.get(HOPS_HEADER)
  if (v !== null && /^[1-9]$/.test(v)) depths.set(request.signal, Math.min(Number(v), MAX_HOPS))
}

/** The depth of the request whose signal is `signal`: 0 for one that came from a person or a client. */
export const hopsOf = (signal: AbortSignal | undefined): number => (signal && depths.get(signal)) || 0
