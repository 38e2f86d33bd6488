/**
 * @module host/node-main
 * `npm run serve -- --port <p> [--data <dir> | --memory | --database <url>]`: the Node host's command line.
 */
import { parseArgs } from 'node:util'
import { homedir, networkInterfaces } from 'node:os'
import { join, resolve } from 'node:path'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { readCatalogueFolder } from '../catalogue/folder.ts'
import type { OutpostApp } from '../app.ts'
import { seedDemo } from '../demo.ts'
import { checkDatabaseUrl, createApp, nodePlatform, nodeSpatialDb, postgresData, randomPassword, redactUrl, serve } from './node.ts'
import { listenError } from './node-listen.ts'
import { guardedFetch, isLoopbackHost, outboundGuard, parseCidrs } from './node-outbound.ts'
import { lockDataFolder } from './node-lock.ts'
import { IDENTIFIER_STYLES, type IdentifierStyle } from '../core/identifiers.ts'
import { describeS3, parseBlobsUrl } from './node-s3-blobs.ts'

const isIdentifierStyle = (s: string): s is IdentifierStyle => (IDENTIFIER_STYLES as readonly string[]).includes(s)

const USAGE = `Usage: npm run serve -- [--port 8080] [--host 127.0.0.1] [--data <dir> | --memory] [--database <url>] [--static <dir>] [--identifiers spec|original] [--trust-proxy <cidr>]
  --port     TCP port (default $PORT or 8080; 0 picks a free one)
  --host     address to listen on (default 127.0.0.1; 0.0.0.0 for every network, e.g. phones on the Wi-Fi)
  --tls-cert, --tls-key  PEM files: serve HTTPS (a phone's browser runs the app's worker only on a secure origin)
  --cors     a browser origin allowed to call the API across origins (repeatable; also $OUTPOST_CORS, comma-separated)
  --data     folder for the server's data (default $OUTPOST_DATA or ~/.local/share/outpost)
  --memory   keep everything in memory; nothing survives a restart
  --database postgres://user:password@host:port/database: the data in PostgreSQL (also $OUTPOST_DATABASE_URL),
             shared by every process started on it (docs/team-server.md); --data then keeps only secret.key
  --blobs    s3://bucket/prefix?endpoint=http(s)://host:port&region=…: with --database, blobs in an S3-compatible
             store instead of the database (also $OUTPOST_BLOBS; keys from OUTPOST_S3_ACCESS_KEY_ID/_SECRET_ACCESS_KEY or AWS_*)
  --static   folder of the built app to serve (default ./dist when it exists)
  --demo     create the demo data set when the data folder is new
  --catalogue  folder in the QMS data layout that replaces the geoservice catalogue at start
  --upload-quota  bytes of pending uploads anonymous users may add to (default 1 GiB)
  --allow-remote  an address range (CIDR) remote, WMS and PostGIS connections may reach although it
             is not public, when --host is beyond loopback (repeatable; also $OUTPOST_ALLOW_REMOTE,
             comma-separated); a PostGIS Unix socket counts as 127.0.0.1
  --trust-proxy  address range (CIDR) of reverse proxies in front of this host (repeatable; also
             $OUTPOST_TRUST_PROXY, comma-separated): from them, X-Forwarded-For names the client for the
             per-address login limits (docs/security.md); from anyone else the header is ignored
  --identifiers  spec (default) or original: answers name classes, class members and vector-tile layers
             as the original does (mapserver_style, postgis_layer, ngw:<id>) for desktop clients that
             expect its names (GDAL's NGW driver, NextGIS Connect, ngw-kit); also $OUTPOST_IDENTIFIERS.
             Requests are accepted in either spelling whatever the setting
The administrator's password comes from OUTPOST_ADMIN_PASSWORD; without it a random one is
generated on the first start and printed.`

export const DEFAULT_DATA_DIR = process.env.OUTPOST_DATA ?? join(homedir(), '.local', 'share', 'outpost')

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.PORT || '8080' }, data: { type: 'string' }, memory: { type: 'boolean', default: false },
      static: { type: 'string' }, demo: { type: 'boolean', default: false }, help: { type: 'boolean', default: false },
      catalogue: { type: 'string' }, 'upload-quota': { type: 'string' }, host: { type: 'string', default: '127.0.0.1' },
      'tls-cert': { type: 'string' }, 'tls-key': { type: 'string' }, cors: { type: 'string', multiple: true },
      'allow-remote': { type: 'string', multiple: true }, database: { type: 'string' }, identifiers: { type: 'string' },
      blobs: { type: 'string' },
      'trust-proxy': { type: 'string', multiple: true },
    },
  })
  if (values.help) { console.log(USAGE); return }
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid --port '${values.port}'.\n${USAGE}`)
  if (values.memory && values.data) throw new Error(`--memory and --data exclude each other.\n${USAGE}`)
  const database = values.database ?? (process.env.OUTPOST_DATABASE_URL || undefined)
  if (database && values.memory) throw new Error(`--memory and --database exclude each other.\n${USAGE}`)
  if (database) checkDatabaseUrl(database)
  const blobsUrl = values.blobs ?? (process.env.OUTPOST_BLOBS || undefined)
  if (blobsUrl && !database) throw new Error(`--blobs goes with --database (a data folder keeps its blobs itself).\n${USAGE}`)
  const blobs = blobsUrl ? parseBlobsUrl(blobsUrl) : undefined
  const identifiers = values.identifiers ?? (process.env.OUTPOST_IDENTIFIERS || 'spec')
  if (!isIdentifierStyle(identifiers)) throw new Error(`Invalid --identifiers '${identifiers}': spec or original.\n${USAGE}`)
  const dataDir = values.memory ? undefined : resolve(values.data ?? DEFAULT_DATA_DIR)
  if (!values['tls-cert'] !== !values['tls-key']) throw new Error(`--tls-cert and --tls-key go together.\n${USAGE}`)
  const tls = values['tls-cert'] ? { cert: await readFile(values['tls-cert']), key: await readFile(values['tls-key']!) } : undefined
  const corsOrigins = [...values.cors ?? [], ...(process.env.OUTPOST_CORS ?? '').split(',').map((o) => o.trim()).filter(Boolean)]
  const uploadQuota = values['upload-quota'] === undefined ? undefined : Number(values['upload-quota'])
  if (uploadQuota !== undefined && !(Number.isSafeInteger(uploadQuota) && uploadQuota >= 0)) {
    throw new Error(`Invalid --upload-quota '${values['upload-quota']}': a number of bytes.\n${USAGE}`)
  }
  const allow = parseCidrs(listOption(values['allow-remote'], process.env.OUTPOST_ALLOW_REMOTE))
  const trustProxy = parseCidrs(listOption(values['trust-proxy'], process.env.OUTPOST_TRUST_PROXY), '--trust-proxy')
  // On loopback only this machine's users reach the API; beyond it, outbound requests may go to public addresses only.
  // The same for the connections of teams' PostGIS databases (spatialdb_connection).
  const exposed = !isLoopbackHost(values.host!)
  const fetch = exposed ? guardedFetch(allow) : undefined
  const spatialDb = nodeSpatialDb(exposed ? { guard: outboundGuard(allow) } : {})
  // The port first: on a busy one the start ends here (exit 1, how to pick another), before a
  // data folder, its lock or a password exists, so no password is printed by a failed start.
  // Requests wait until the app below is ready.
  let app: OutpostApp | undefined
  let open: () => void = () => undefined
  const ready = new Promise<void>((resolve) => { open = resolve })
  const staticDir = values.static ?? (existsSync('dist/index.html') ? 'dist' : undefined)
  const server = await serve({ fetch: async (req, ctx) => { await ready; return app!.fetch(req, ctx) } },
    { port, host: values.host, staticDir, tls, ownsGlobals: true, trustProxy })
    .catch((err: unknown) => { throw listenError(err, port, values.host!) })
  // Before anything is read, written, generated or printed: a second process on the folder
  // stops here (exit 1, the holder's pid in the message) and changes nothing. Held until exit.
  // With --database several processes share the data, and the folder keeps only secret.key: no lock.
  if (dataDir && !database) lockDataFolder(dataDir)
  const envPassword = process.env.OUTPOST_ADMIN_PASSWORD
  const admin = { password: envPassword || randomPassword(), mustChange: false, force: !!envPassword }
  app = createApp(nodePlatform({ dataDir, admin, corsOrigins, uploadQuota, fetch, sharedDatabase: !!database }),
    { setup: values.demo ? seedDemo : undefined, data: database ? postgresData(database, { blobs }) : undefined, identifiers, spatialDb })
  const services = await app.services()
  if (services.adminCreated && !envPassword) console.log(`administrator password: ${admin.password}`)
  else if (!envPassword) console.log('administrator password: unchanged (set OUTPOST_ADMIN_PASSWORD to reset it)')
  if (values.catalogue) {
    const dir = resolve(values.catalogue)
    if (!existsSync(join(dir, 'geoservices.json'))) throw new Error(`--catalogue: no geoservices.json in ${dir}`)
    const body = await readCatalogueFolder((name) => readFile(join(dir, name)).then((b) => new Uint8Array(b), () => undefined))
    await (await services.catalogue()).import(body)
    console.log(`catalogue loaded from ${dir}`)
  }
  open()
  const addr = server.address()
  const actual = typeof addr === 'object' && addr ? addr.port : port
  console.log(database ? `data in ${redactUrl(database)} (secret.key in ${dataDir})`
    : dataDir ? `data in ${dataDir}` : 'data in memory (--memory): nothing is kept after exit')
  if (blobs) console.log(`blobs in ${describeS3(blobs)}`)
  if (identifiers === 'original') console.log('answers use the original\'s names (--identifiers original): mapserver_style, postgis_layer, ngw:<id>')
  const scheme = tls ? 'https' : 'http'
  const local = `${scheme}://${values.host === '0.0.0.0' || values.host === '::' ? '127.0.0.1' : values.host}:${actual}`
  console.log(`listening on ${local}`)
  const urls = [local, ...lanAddresses(values.host!).map((a) => `${scheme}://${a}:${actual}`)]
  if (staticDir) console.log(howTo(urls, services.adminCreated && !envPassword, !!tls, corsOrigins))
  // The services close last (the PostGIS pools, then the data port: connections end cleanly on the servers' side).
  const stop = () => server.close(() => void services.close().finally(() => process.exit(0)))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

/** A repeatable option's values, then its environment variable's (comma-separated). */
function listOption(given: string[] | undefined, env: string | undefined): string[] {
  return [...given ?? [], ...(env ?? '').split(',').map((c) => c.trim()).filter(Boolean)]
}

/** This machine's addresses on its networks, when listening on all of them. */
function lanAddresses(host: string): string[] {
  if (host !== '0.0.0.0' && host !== '::') return []
  return Object.values(networkInterfaces()).flat().filter((i) => i && i.family === 'IPv4' && !i.internal).map((i) => i!.address)
}

/** What to type where: the app in a browser, and this server as its team's server. */
function howTo(urls: string[], newPassword: boolean, tls: boolean, cors: string[]): string {
  return [
    '',
    `The app: open ${urls.join(' or ')} in a browser${urls.length > 1 && !tls ? ' (a phone needs HTTPS: see README)' : ''}.`,
    '  It keeps its own offline copy of its data in that browser (log in there as administrator / admin',
    '  the first time; it asks for a new password).',
    'This server is the team\'s server: in the app, press "Sync" and connect it under "Team server" with',
    `  URL       ${urls[urls.length - 1]}`,
    '  login     administrator',
    `  password  ${newPassword ? 'the administrator password printed above' : 'this server\'s administrator password'}`,
    '  then take layers offline from it and sync.',
    'An app served from another origin (another port or host, e.g. dist/ on a static host) may call this',
    `  server only if the server allows that origin: start it with --cors <the app's origin>, e.g. --cors https://you.github.io`,
    `  (${cors.length ? `allowed now: ${cors.join(', ')}` : 'none allowed now'}; the app's own origin, ${urls[0]}, needs none).`,
  ].join('\n')
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err)
  process.exit(1)
})
