/**
 * @module feature/routes
 * `feature_layer.feature.*` and `layer.extent` (spec §4.3–§4.6; reference §5.3–§5.5):
 * parse the request, call the layer, serialize. Any resource whose class provides the
 * feature-layer capability is served. Reads are open to everyone; writes need an
 * administrator (anyone else gets 403).
 */
import { isObject, json, readJson } from '../core/http.ts'
import { onPath, type RequestContext, type Routes } from '../core/routes.ts'
import { expectKind, lastValue, queryBool } from '../core/validate.ts'
import { validationError } from '../core/error.ts'
import { bboxOf } from '../geo/geometry.ts'
import type { FeatureVariables } from './env.ts'
import type { FeatureInput, FeatureLayer, FeatureUpdate } from './types.ts'
import { dumpOptions, filterOf, orderOf, paging, querySrs } from './query.ts'
import { changesFeature, parseBatch, parseIds, parseInput, type WriteOptions } from './input.ts'
import { featureJson, geometryInfo, lonLatExtent, rowShape, wantsAttachments } from './serialize.ts'
import { writeFeatures, type FeatureWriter, type Written } from './write.ts'
import { keyedRequest, REPLAYED_HEADER } from '../core/idempotency.ts'
import { readVersion } from './versioning/params.ts'
import { mountVersioning } from './versioning/routes.ts'
import { mountTransaction } from './transaction/routes.ts'
import { featureNotFound } from './errors.ts'
import { layerOf, writableLayerOf } from './layer.ts'

type Ctx = RequestContext<FeatureVariables>

const fidOf = (c: Ctx) => Number(c.req.param('fid'))
const paramsOf = (c: Ctx) => new URL(c.req.url).searchParams

async function writeOptions(c: Ctx): Promise<WriteOptions> {
  const params = paramsOf(c)
  const fmt = lastValue(params, 'geom_format') ?? 'wkt'
  if (fmt !== 'wkt' && fmt !== 'geojson') throw validationError(`Invalid value '${fmt}' of geom_format; expected wkt or geojson.`)
  return { srs: await querySrs(params, c.get('services').platform.epsg), geomFormat: fmt, geomNull: queryBool(params, 'geom_null', false) }
}

const write = <T>(c: Ctx, layer: FeatureLayer, fn: (w: FeatureWriter) => Promise<T>, inputs: FeatureInput[] = []) =>
  writeFeatures(c.get('services'), layer, inputs, fn, { userId: c.get('user').id, request: keyedRequest(c.req.raw) })

/** A write's answer; one recorded earlier under its `Idempotency-Key` says so (Stripe's header name). */
const answer = (w: Written<unknown>, body: unknown) => json(body, 200, w.replayed ? REPLAYED_HEADER : {})

/** `{"id": fid}`, with the write's `version` on a versioned layer (reference §5.3). */
const idBody = (id: number, w: Written<unknown>) => (w.version === undefined ? { id } : { id, version: w.version })

/** A GET's JSON body (`{"intersects": …}` for big geometries), if it has one. */
async function getBody(c: Ctx): Promise<Record<string, unknown> | undefined> {
  if (!c.req.raw.body) return undefined
  const body = await readJson(c.req.raw)
  return isObject(body) ? body : undefined
}

export function mountFeature(routes: Routes<FeatureVariables>): void {
  mountVersioning(routes)
  mountTransaction(routes)
  const collection = async (c: Ctx) => {
    switch (c.req.method) {
      case 'GET': {
        const body = await getBody(c)
        const layer = await layerOf(c)
        const { meta } = layer
        const params = paramsOf(c)
        const opts = await dumpOptions(params, meta, c.get('services').platform.epsg)
        const query = { filter: filterOf(params, meta, body), order: orderOf(params, meta), ...paging(params) }
        return json(await layer.read(async (tx) => {
          const version = await readVersion(tx.history, params)
          const rows = await tx.list({ ...query, version }, rowShape(opts))
          const fids = rows.map((r) => r.fid)
          const att = !wantsAttachments(opts) ? undefined
            : version === undefined ? await tx.attachments(fids) : await tx.history!.attachmentsAt(fids, version)
          return rows.map((r) => featureJson(r, meta, opts, att))
        }))
      }
      case 'POST': {
        // The layer and the right to write it first, the body after.
        const layer = await writableLayerOf(c)
        const body = await readJson(c.req.raw)
        const input = parseInput(body, layer.meta, await writeOptions(c), '$')
        const w = await write(c, layer, (w) => w.create(input), [input])
        return answer(w, idBody(w.result, w))
      }
      case 'PATCH': {
        const layer = await writableLayerOf(c)
        const body = await readJson(c.req.raw)
        expectKind<unknown[]>('array', body, '$') // the body's shape is judged before the query's
        const ops = parseBatch(body, layer.meta, await writeOptions(c))
        const updated = ops.flatMap((op) => 'input' in op && op.id !== undefined && changesFeature(op.input) ? [op.id] : [])
        const w = await write(c, layer, async (w) => {
          await w.tx.historyWrite?.beforeUpdates(updated)
          const ids: { id: number }[] = []
          // A run of new features, and a run of changed ones, is one call (one await, however long the run).
          let run: FeatureInput[] = []
          let changed: FeatureUpdate[] = []
          const flush = async () => {
            if (run.length) for (const id of await w.createMany(run.splice(0))) ids.push({ id })
            if (changed.length) {
              const items = changed.splice(0)
              await w.updateMany(items)
              for (const { fid } of items) ids.push({ id: fid })
            }
          }
          for (const op of ops) {
            if ('del' in op) {
              await flush()
              await w.delete(op.id)
              ids.push({ id: op.id })
            } else if (op.id === undefined) {
              if (changed.length) await flush()
              run.push(op.input)
            } else {
              if (run.length) await flush()
              changed.push({ fid: op.id, input: op.input })
            }
          }
          await flush()
          return ids
        }, ops.flatMap((op) => ('input' in op ? [op.input] : [])))
        // Every item carries the batch's one version, deletes too, as the original's.
        return answer(w, w.result.map((r) => idBody(r.id, w)))
      }
      case 'DELETE': {
        const layer = await writableLayerOf(c)
        const body = await readJson(c.req.raw)
        if (body === undefined) return answer(await write(c, layer, (w) => w.deleteAll()), true)
        const ids = parseIds(body)
        return answer(await write(c, layer, async (w) => { for (const id of ids) await w.delete(id) }), ids)
      }
    }
    throw new Error('unreachable')
  }
  routes.add('feature_layer.feature.collection', '/api/resource/{id}/feature/', ['GET', 'POST', 'PATCH', 'DELETE'], { GET: onPath('data', 'read'), POST: onPath('data', 'write'), PATCH: onPath('data', 'write'), DELETE: onPath('data', 'write') }, collection)
  routes.add('feature_layer.feature.collection', '/api/resource/{id}/feature', ['GET', 'POST', 'PATCH', 'DELETE'], { GET: onPath('data', 'read'), POST: onPath('data', 'write'), PATCH: onPath('data', 'write'), DELETE: onPath('data', 'write') }, collection)

  routes.add('feature_layer.feature.item', '/api/resource/{id}/feature/{fid}', ['GET', 'PUT', 'DELETE'], { GET: onPath('data', 'read'), PUT: onPath('data', 'write'), DELETE: onPath('data', 'write') }, async (c) => {
    const fid = fidOf(c)
    if (c.req.method === 'GET') {
      const layer = await layerOf(c)
      const params = paramsOf(c)
      const opts = await dumpOptions(params, layer.meta, c.get('services').platform.epsg)
      const feature = await layer.read(async (tx) => {
        const version = await readVersion(tx.history, params)
        const [row] = await tx.list({ fid, version }, rowShape(opts))
        const att = !wantsAttachments(opts) ? undefined
          : version === undefined ? await tx.attachments([fid]) : await tx.history!.attachmentsAt([fid], version)
        return row && featureJson(row, layer.meta, opts, att)
      })
      if (!feature) throw featureNotFound(layer.meta.resourceId, fid)
      return json(feature)
    }
    if (c.req.method === 'PUT') {
      const layer = await writableLayerOf(c)
      const body = await readJson(c.req.raw)
      const input = parseInput(body ?? {}, layer.meta, await writeOptions(c), '$')
      const w = await write(c, layer, (w) => w.update(fid, input), [input])
      return answer(w, idBody(fid, w))
    }
    const layer = await writableLayerOf(c)
    const w = await write(c, layer, (w) => w.delete(fid))
    return answer(w, idBody(fid, w))
  })

  /** The geometry of the addressed feature; 404 when there is no such feature. */
  const geometry = async (c: Ctx, layer: FeatureLayer) => {
    const g = await layer.read((tx) => tx.geometry(fidOf(c)))
    if (g === undefined) throw featureNotFound(layer.meta.resourceId, fidOf(c))
    return g
  }

  routes.add('feature_layer.feature.item_extent', '/api/resource/{id}/feature/{fid}/extent', 'GET', onPath('data', 'read'), async (c) => {
    const layer = await layerOf(c)
    const g = await geometry(c, layer)
    return json({ extent: g ? lonLatExtent(bboxOf(g), layer.meta.srs) : null })
  })

  routes.add('feature_layer.feature.geometry_info', '/api/resource/{id}/feature/{fid}/geometry_info', 'GET', onPath('data', 'read'), async (c) => {
    const srs = await querySrs(paramsOf(c), c.get('services').platform.epsg)
    const layer = await layerOf(c)
    return json(geometryInfo(await geometry(c, layer), layer.meta, srs))
  })

  routes.add('feature_layer.feature.count', '/api/resource/{id}/feature_count', 'GET', onPath('data', 'read'), async (c) => {
    const layer = await layerOf(c)
    const filter = filterOf(paramsOf(c), layer.meta, await getBody(c))
    return json(await layer.read(async (tx) => {
      const out: Record<string, number> = { total_count: await tx.count() }
      if (filter.filtered) out.filtered_count = await tx.count(filter)
      return out
    }))
  })

  routes.add('feature_layer.feature.extent', '/api/resource/{id}/feature_extent', 'GET', onPath('data', 'read'), async (c) => {
    const layer = await layerOf(c)
    const filter = filterOf(paramsOf(c), layer.meta, await getBody(c))
    return json(lonLatExtent(await layer.read((tx) => tx.extent(filter)), layer.meta.srs))
  })

  routes.add('layer.extent', '/api/resource/{id}/extent', 'GET', onPath('data', 'read'), async (c) => {
    // A layer without features (a raster) has an extent too.
    const other = await c.get('services').classes.layerExtent?.(Number(c.req.param('id')))
    if (other) return json({ extent: lonLatExtent(other.bbox, other.srs) })
    const layer = await layerOf(c)
    return json({ extent: lonLatExtent(await layer.read((tx) => tx.extent()), layer.meta.srs) })
  })
}
