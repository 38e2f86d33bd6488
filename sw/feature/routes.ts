/**
 * @module feature/routes
 * `feature_layer.feature.*` and `layer.extent` (spec §4.3–§4.6; reference §5.3–§5.5):
 * parse the request, call the service, serialize. Reads are open to everyone; writes need
 * an administrator (anyone else gets 403).
 */
import type { Context } from 'hono'
import type { AppEnv } from '../core/env.ts'
import { isObject, json, readJson } from '../core/http.ts'
import type { RouteTable } from '../core/routes.ts'
import { lastValue, queryBool } from '../core/validate.ts'
import { validationError } from '../core/error.ts'
import { requireAdmin } from '../auth/middleware.ts'
import { expectKind } from '../core/validate.ts'
import { layersOf } from './layers.ts'
import type { LayerMeta } from './schema.ts'
import { dumpOptions, ordering, paging, querySrs, selection } from './query.ts'
import { featureNotFound } from './errors.ts'
import { withExtensionFiles } from './attachment-service.ts'
import {
  countFeatures, extentOf, featureExtent, geometryInfo, geometryOf, listFeatures, lonLatExtent, parseInput, writeFeatures,
  type FeatureInput, type WriteOptions,
} from './service.ts'

const idOf = (c: Context<AppEnv>) => Number(c.req.param('id'))
const fidOf = (c: Context<AppEnv>) => Number(c.req.param('fid'))
const paramsOf = (c: Context<AppEnv>) => new URL(c.req.url).searchParams

async function open(c: Context<AppEnv>, meta?: LayerMeta) {
  const reg = layersOf(c.get('services'))
  const m = meta ?? await reg.meta(idOf(c))
  return { meta: m, layer: await reg.open(m) }
}

/** Checks the layer and the right to write it (before any body is read); returns the layer's metadata. */
async function writable(c: Context<AppEnv>): Promise<LayerMeta> {
  const meta = await layersOf(c.get('services')).meta(idOf(c))
  requireAdmin(c.get('user'), 'write', 'data', meta.resourceId)
  return meta
}

function writeOptions(c: Context<AppEnv>): WriteOptions {
  const params = paramsOf(c)
  const fmt = lastValue(params, 'geom_format') ?? 'wkt'
  if (fmt !== 'wkt' && fmt !== 'geojson') throw validationError(`Invalid value '${fmt}' of geom_format; expected wkt or geojson.`)
  return { srs: querySrs(params), geomFormat: fmt, geomNull: queryBool(params, 'geom_null', false) }
}

/** Runs one layer write; `inputs` whose `extensions.attachment` items carry uploads get them staged first. */
async function write<T>(c: Context<AppEnv>, meta: LayerMeta, fn: Parameters<typeof writeFeatures<T>>[4],
  inputs: FeatureInput[] = []): Promise<T> {
  const services = c.get('services')
  const { platform } = services
  const { layer } = await open(c, meta)
  return withExtensionFiles(services, meta.resourceId, inputs,
    () => writeFeatures(layer, meta, platform.now(), (id) => platform.store.deleteBlob(id), fn))
}

/** A GET's JSON body (`{"intersects": …}` for big geometries), if it has one. */
async function getBody(c: Context<AppEnv>): Promise<Record<string, unknown> | undefined> {
  if (!c.req.raw.body) return undefined
  const body = await readJson(c.req.raw)
  return isObject(body) ? body : undefined
}

export function mountFeature(routes: RouteTable): void {
  const collection = async (c: Context<AppEnv>) => {
    switch (c.req.method) {
      case 'GET': {
        const body = await getBody(c)
        const { meta, layer } = await open(c)
        const params = paramsOf(c)
        const opts = dumpOptions(params, meta)
        const sel = selection(params, meta, body)
        const order = ordering(params, meta)
        const { limit, offset } = paging(params)
        return json(await layer.db.read((db) => listFeatures(db, layer, meta, opts, { sel, order, limit, offset })))
      }
      case 'POST': {
        const meta = await writable(c)
        const body = await readJson(c.req.raw)
        const input = parseInput(body, meta, writeOptions(c), '$')
        const id = await write(c, meta, (w) => w.create(input), [input])
        return json({ id })
      }
      case 'PATCH': {
        const meta = await writable(c)
        const body = await readJson(c.req.raw)
        const items = expectKind<unknown[]>('array', body, '$')
        const opts = writeOptions(c)
        // Everything is parsed before anything is written: one bad item fails the batch.
        type Op = { id: number; del: true } | { id: number | undefined; input: FeatureInput }
        const ops = items.map((raw, i): Op => {
          const path = `$[${i}]`
          const item = isObject(raw) ? raw : expectKind<Record<string, unknown>>('object', raw, path)
          const id = item.id === undefined || item.id === null ? undefined : expectKind<number>('int', item.id, `${path}.id`)
          if (item.delete === true) {
            if (id === undefined) throw validationError(`Deleting needs an id - at \`${path}\``)
            return { id, del: true }
          }
          return { id, input: parseInput(item, meta, opts, path) }
        })
        const out = await write(c, meta, (w) => ops.map((op) => {
          if ('del' in op) { w.delete(op.id); return { id: op.id } }
          if (op.id === undefined) return { id: w.create(op.input) }
          w.update(op.id, op.input)
          return { id: op.id }
        }), ops.flatMap((op) => ('input' in op ? [op.input] : [])))
        return json(out)
      }
      case 'DELETE': {
        const meta = await writable(c)
        const body = await readJson(c.req.raw)
        if (body === undefined) {
          await write(c, meta, (w) => w.deleteAll())
          return json(true)
        }
        const ids = expectKind<unknown[]>('array', body, '$').map((item, i) => {
          const o = expectKind<Record<string, unknown>>('object', item, `$[${i}]`)
          return expectKind<number>('int', o.id, `$[${i}].id`)
        })
        await write(c, meta, (w) => { for (const id of ids) w.delete(id) })
        return json(ids)
      }
    }
    throw new Error('unreachable')
  }
  routes.add('feature_layer.feature.collection', '/api/resource/{id}/feature/', ['GET', 'POST', 'PATCH', 'DELETE'], collection)
  routes.add('feature_layer.feature.collection', '/api/resource/{id}/feature', ['GET', 'POST', 'PATCH', 'DELETE'], collection)

  routes.add('feature_layer.feature.item', '/api/resource/{id}/feature/{fid}', ['GET', 'PUT', 'DELETE'], async (c) => {
    const fid = fidOf(c)
    if (c.req.method === 'GET') {
      const { meta, layer } = await open(c)
      const opts = dumpOptions(paramsOf(c), meta)
      const [feature] = await layer.db.read((db) => listFeatures(db, layer, meta, opts, { fid }))
      if (!feature) throw featureNotFound(meta.resourceId, fid)
      return json(feature)
    }
    if (c.req.method === 'PUT') {
      const meta = await writable(c)
      const body = await readJson(c.req.raw)
      const input = parseInput(body ?? {}, meta, writeOptions(c), '$')
      await write(c, meta, (w) => w.update(fid, input), [input])
      return json({ id: fid })
    }
    const meta = await writable(c)
    await write(c, meta, (w) => w.delete(fid))
    return json({ id: fid })
  })

  routes.add('feature_layer.feature.item_extent', '/api/resource/{id}/feature/{fid}/extent', 'GET', async (c) => {
    const { meta, layer } = await open(c)
    const blob = await layer.db.read((db) => geometryOf(db, meta, fidOf(c)))
    return json({ extent: featureExtent(blob, meta) })
  })

  routes.add('feature_layer.feature.geometry_info', '/api/resource/{id}/feature/{fid}/geometry_info', 'GET', async (c) => {
    const srs = querySrs(paramsOf(c))
    const { meta, layer } = await open(c)
    const blob = await layer.db.read((db) => geometryOf(db, meta, fidOf(c)))
    return json(geometryInfo(blob, meta, srs))
  })

  routes.add('feature_layer.feature.count', '/api/resource/{id}/feature_count', 'GET', async (c) => {
    const { meta, layer } = await open(c)
    const sel = selection(paramsOf(c), meta, await getBody(c))
    return json(await layer.db.read((db) => {
      const out: Record<string, number> = { total_count: countFeatures(db, layer) }
      if (sel.filtered) out.filtered_count = countFeatures(db, layer, sel)
      return out
    }))
  })

  routes.add('feature_layer.feature.extent', '/api/resource/{id}/feature_extent', 'GET', async (c) => {
    const { meta, layer } = await open(c)
    const sel = selection(paramsOf(c), meta, await getBody(c))
    const box = await layer.db.read((db) => extentOf(db, layer, sel))
    return json(lonLatExtent(box, meta.srs))
  })

  routes.add('layer.extent', '/api/resource/{id}/extent', 'GET', async (c) => {
    const { meta, layer } = await open(c)
    const box = await layer.db.read((db) => extentOf(db, layer))
    return json({ extent: lonLatExtent(box, meta.srs) })
  })
}
