/**
 * @module classes/spatialdb_layer
 * A table of a team's own PostGIS database published as a layer without copying it (issue 24;
 * the original's `postgis_layer`, reference ngw-services §4.2–4.3):
 * `spatialdb_layer: {connection: {id}, schema, table, column_id, column_geom, geometry_type,
 * geometry_srid, srs: {id}, fields: "update"|"keep"}`. The resource keeps where the table is
 * and its fields (the data port's, as a vector layer's, each mapped to its column); the
 * features stay in the team's database and are served through the port (sw/port/spatialdb.ts).
 *
 * `fields: "update"` is write-only, applied last, and needs `connection.connect` on the
 * connection (else 403): the table is read before the main write (`prepare`), outside its
 * transaction. Reading the layer's data needs `connection.connect` too (§4.5, `dataNeeds`).
 * No versioning (422 "Versioning not supported"). The features' attachments and descriptions are
 * kept in our own storage by fid (extras.ts), as the original keeps them in its own. The service worker cannot open a database
 * connection: creating one there is a 422 that says so.
 */
import { forbidden, validationError } from '../../core/error.ts'
import { expectKeys, expectKind, expectObject, expectRef } from '../../core/validate.ts'
import { memberSrs } from '../../ingest/member.ts'
import { applyFields } from '../../feature/fields-member.ts'
import { GEOMETRY_TYPES, type FeatureLayer, type LayerMeta } from '../../feature/types.ts'
import type { TableDescription } from '../../port/spatialdb.ts'
import { noDatabaseHere, notAConnection } from '../../spatialdb/errors.ts'
import { nameOf, required } from '../../spatialdb/params.ts'
import type { ResourceRef } from '../../resource/types.ts'
import type { ClassContext, ClassData, ClassEnv, ClassFactory, Prepared, WriteContext } from '../types.ts'
import { checkColumns, fieldsFromTable } from './fields.ts'
import { dropExtras, LayerWrites, withExtras } from './extras.ts'

const CLASS = 'spatialdb_layer'
const PATH = `$.${CLASS}`
/** The class of the resources a layer's `connection` may name. */
const CONNECTION_CLASS = 'spatialdb_connection'
const KEYS = ['connection', 'schema', 'table', 'column_id', 'column_geom', 'geometry_type', 'geometry_srid', 'srs', 'fields']

/** What the resource row keeps of a PostGIS layer. */
interface LayerData {
  connection: number
  schema: string
  table: string
  column_id: string
  column_geom: string
  geometry_type: string
  geometry_srid: number
  /** The working SRS: features are transformed between `geometry_srid` and it. */
  srs: number
  /** Field id → the column it reads. */
  columns: Record<string, string>
}

/** Where the table is and what it holds, as sent (merged over the stored layer on a change). */
interface TableInput {
  connection: number; schema: string; table: string; columnId: string; columnGeom: string
  geometryType: string | null; geometrySrid: number | null
}

/** The table as `fields: "update"` read it before the main write, and what it was read for. */
interface PreparedTable extends Prepared {
  description: TableDescription
  /** The `TableInput` it was read for: the write checks it still is what it writes. */
  key: string
}

function geometryTypeOf(v: unknown, path: string): string | null {
  const s = expectKind<string | null>('str', v, path, true)
  if (s !== null && !(GEOMETRY_TYPES as readonly string[]).includes(s)) {
    throw validationError(`Invalid geometry type '${s}'; expected one of ${GEOMETRY_TYPES.join(', ')} - at \`${path}\``)
  }
  return s
}

function sridOf(v: unknown, path: string): number | null {
  const n = expectKind<number | null>('int', v, path, true)
  if (n !== null && n <= 0) throw validationError(`${n} is an invalid SRID. - at \`${path}\``)
  return n
}

/** `fields`: `"update"`, `"keep"` or absent. */
function fieldsMode(m: Record<string, unknown>): 'update' | 'keep' {
  if (m.fields === undefined || m.fields === null) return 'keep'
  if (m.fields !== 'update' && m.fields !== 'keep') throw validationError(`Invalid value of fields: '${String(m.fields)}'; expected "update" or "keep" - at \`${PATH}.fields\``)
  return m.fields
}

/** The member over the stored layer `prev` (absent on create, where the required fields are checked). */
function tableInput(m: Record<string, unknown>, prev: LayerData | undefined): TableInput {
  expectKeys(m, KEYS, PATH)
  if (!prev) for (const k of ['connection', 'table', 'column_id', 'column_geom', 'srs']) if (m[k] === undefined) throw required(k, PATH)
  const text = (k: string, fallback: string | undefined) => (m[k] === undefined ? fallback! : nameOf(m[k], `${PATH}.${k}`))
  return {
    connection: m.connection === undefined ? prev!.connection : expectRef(m.connection, `${PATH}.connection`),
    schema: text('schema', prev?.schema ?? 'public'),
    table: text('table', prev?.table),
    columnId: text('column_id', prev?.column_id),
    columnGeom: text('column_geom', prev?.column_geom),
    geometryType: m.geometry_type === undefined ? prev?.geometry_type ?? null : geometryTypeOf(m.geometry_type, `${PATH}.geometry_type`),
    geometrySrid: m.geometry_srid === undefined ? prev?.geometry_srid ?? null : sridOf(m.geometry_srid, `${PATH}.geometry_srid`),
  }
}

/** The table as the port reads it (`fields: "update"`) for `input`, once the user may connect there. */
async function describe(env: ClassEnv, input: TableInput, may: ((id: number, scope: string, permission: string) => Promise<boolean>) | undefined): Promise<TableDescription> {
  if (!env.spatialDb) throw noDatabaseHere()
  if (may && !await may(input.connection, 'connection', 'connect')) {
    throw forbidden(`Reading the table's columns (fields: "update") needs the 'connect' permission in scope 'connection' on resource id = ${input.connection}.`)
  }
  const src = await env.classes.spatialDbSource(input.connection)
  if (!src) throw notAConnection(input.connection, `${PATH}.connection`)
  return env.spatialDb.describe(src, input)
}

/** Applies member `m` (and the table as `fields: "update"` read it) over `prev`; the stored data. */
async function applyMember(ctx: WriteContext, m: Record<string, unknown>, prev: LayerData | undefined): Promise<LayerData> {
  const input = tableInput(m, prev)
  const conn = (await ctx.tx.resources.refs([input.connection]))[0]
  if (conn?.cls !== CONNECTION_CLASS) throw notAConnection(input.connection, `${PATH}.connection`)
  let { geometryType, geometrySrid } = input
  if (fieldsMode(m) === 'update') {
    const prepared = ctx.prepared as PreparedTable | undefined
    if (!prepared || prepared.key !== JSON.stringify(input)) throw validationError('The layer changed while its table was read: send the change again.')
    ;({ geometryType, geometrySrid } = prepared.description)
  }
  if (geometryType === null || geometrySrid === null) {
    throw validationError(`Geometry type and SRID are not known: give geometry_type and geometry_srid, or send "fields": "update" to read them from the table - at \`${PATH}\``)
  }
  return { connection: input.connection, schema: input.schema, table: input.table, column_id: input.columnId, column_geom: input.columnGeom,
    geometry_type: geometryType, geometry_srid: geometrySrid, srs: m.srs === undefined ? prev!.srs : memberSrs(m, PATH), columns: prev?.columns ?? {} }
}

/** `feature_layer`: field changes (names, visibility, lookup tables); versioning is refused (§4.2). */
async function applyFeatureLayer(ctx: WriteContext, id: number, member: unknown): Promise<void> {
  if (member === undefined) return
  const m = expectObject(member, '$.feature_layer')
  if (m.versioning !== undefined && m.versioning !== null) {
    const v = expectObject(m.versioning, '$.feature_layer.versioning')
    if (v.enabled === true) throw validationError('Versioning not supported - at `$.feature_layer.versioning.enabled`')
  }
  if (m.fields !== undefined) await applyFields(ctx.tx, id, m.fields, '$.feature_layer.fields', false)
}

/** Create and change alike: the member, then `feature_layer`, then the table's columns (`fields: "update"`, last). */
async function write(ctx: WriteContext, id: number, members: Record<string, unknown>, prev: LayerData | undefined): Promise<LayerData> {
  const m = members[CLASS] === undefined ? undefined : expectObject(members[CLASS], PATH)
  let data = m ? await applyMember(ctx, m, prev) : prev!
  await applyFeatureLayer(ctx, id, members.feature_layer)
  if (m && fieldsMode(m) === 'update') data = { ...data, columns: await fieldsFromTable(ctx.tx, id, (ctx.prepared as PreparedTable).description, data.columns) }
  await checkColumns(ctx.tx, id, data.columns)
  return data
}

export const spatialDbLayer: ClassFactory = (env) => {
  /** Each layer's metadata, kept while the main data's change token stays `token`. */
  const metas = new Map<number, { ref: ResourceRef; token: string; meta: LayerMeta }>()
  /** The layers' writes, one at a time per layer (extras.ts). */
  const writes = new LayerWrites()
  const metaOf = async (ref: ResourceRef): Promise<LayerMeta> => {
    const token = env.data.tokens.current('main')
    const hit = metas.get(ref.id)
    if (hit && hit.ref === ref && hit.token === token) return hit.meta
    const d = ref.data as unknown as LayerData
    const fields = (await env.data.read((tx) => tx.fields.list([ref.id]))).get(ref.id) ?? []
    const meta: LayerMeta = { resourceId: ref.id, srs: d.srs, geometryType: d.geometry_type, fields }
    if (metas.size > 10_000) metas.clear()
    metas.set(ref.id, { ref, token, meta })
    return meta
  }
  const serializeLayers = async (ctx: ClassContext, items: ReadonlyArray<{ id: number; data: ClassData }>) => {
    const fields = await ctx.tx.fields.list(items.map((it) => it.id))
    return items.map(({ id, data: raw }) => {
      const d = raw as unknown as LayerData
      return {
        [CLASS]: { connection: { id: d.connection }, schema: d.schema, table: d.table, column_id: d.column_id, column_geom: d.column_geom,
          geometry_type: d.geometry_type, geometry_srid: d.geometry_srid, srs: { id: d.srs } },
        // `versioning: null`: the original's for a layer that cannot keep versions.
        feature_layer: { srs: { id: d.srs }, geometry_type: d.geometry_type, fields: fields.get(id) ?? [], versioning: null, aggregations: [] },
      }
    })
  }
  return {
    identity: CLASS,
    label: 'PostGIS layer',
    order: 60,
    category: 'layers_and_styles',
    scopes: ['data', 'resource'],
    interfaces: ['IBboxLayer', 'IFilterableFeatureLayer', 'IFeatureLayer', 'IWritableFeatureLayer'],
    members: [CLASS, 'feature_layer'],
    acceptsParent: (p) => p === 'resource_group',

    // `fields: "update"` reads the table here, before the main write and outside its transaction.
    async prepare(penv, members): Promise<PreparedTable | undefined> {
      if (members[CLASS] === undefined) return undefined
      const m = expectObject(members[CLASS], PATH)
      if (fieldsMode(m) !== 'update') return undefined
      if (!env.spatialDb) throw noDatabaseHere()
      const prev = penv.resourceId === undefined ? undefined : await env.classes.ref(penv.resourceId)
      const input = tableInput(m, prev?.cls === CLASS ? prev.data as unknown as LayerData : undefined)
      return { description: await describe(env, input, penv.may), key: JSON.stringify(input), discard: async () => {}, settle: () => {} }
    },

    async create(ctx, id, members) {
      if (!env.spatialDb) throw noDatabaseHere()
      if (members[CLASS] === undefined) throw required(CLASS, '$')
      return (await write(ctx, id, members, undefined)) as unknown as ClassData
    },

    async update(ctx, id, members, data) {
      return (await write(ctx, id, members, data as unknown as LayerData)) as unknown as ClassData
    },

    serialize: async (ctx, id, raw) => (await serializeLayers(ctx, [{ id, data: raw }]))[0]!,
    serializeMany: serializeLayers,

    // The features' attachments and descriptions (kept by us, extras.ts) go with the layer.
    remove: (_ctx, id) => {
      metas.delete(id)
      return () => dropExtras(env, id)
    },

    capabilities: {
      featureLayer: {
        async open(ref): Promise<FeatureLayer> {
          if (!env.spatialDb) throw noDatabaseHere()
          const d = ref.data as unknown as LayerData
          const src = await env.classes.spatialDbSource(d.connection)
          if (!src) throw validationError(`The connection of layer ${ref.id} (resource id = ${d.connection}) is gone: point the layer at another one (spatialdb_layer.connection).`)
          const meta = await metaOf(ref)
          return withExtras(env, env.spatialDb.layer(src, { schema: d.schema, table: d.table, columnId: d.column_id, columnGeom: d.column_geom,
            geometryType: d.geometry_type, geometrySrid: d.geometry_srid,
            columns: new Map(Object.entries(d.columns).map(([fid, column]) => [Number(fid), column])) }, meta), writes)
        },
      },
      spatialDbLayer: {
        table: (ref) => {
          const d = ref.data as unknown as LayerData
          return { connection: d.connection, table: { schema: d.schema, table: d.table, columnId: d.column_id, columnGeom: d.column_geom,
            geometryType: d.geometry_type, geometrySrid: d.geometry_srid } }
        },
      },
      dataNeeds: (ref) => ({ on: (ref.data as unknown as LayerData).connection, scope: 'connection', permission: 'connect' }),
    },
  }
}
