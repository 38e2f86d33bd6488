/**
 * `npm run migrate -- --from <data folder> --to postgres://… [--replace] [--blobs s3://…]`: copies a SQLite data
 * folder into a PostgreSQL database and verifies it (sw/host/node-migrate.ts, docs/team-server.md).
 * Exit 0: copied and every check equal; 1: refused or failed (the target unchanged); 2: copied but
 * a check differs.
 */
import { parseArgs } from 'node:util'
import { migrateFolder } from '../sw/host/node-migrate.ts'
import { checkDatabaseUrl, redactUrl } from '../sw/host/node.ts'
import { parseBlobsUrl } from '../sw/host/node-s3-blobs.ts'

const { values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' }, replace: { type: 'boolean' }, blobs: { type: 'string' } } })
try {
  if (!values.from || !values.to) {
    throw new Error('Usage: npm run migrate -- --from <data folder> --to postgres://user:pass@host:port/db [--replace] [--blobs s3://bucket/prefix?endpoint=…]')
  }
  checkDatabaseUrl(values.to)
  // The blobs go where the hosts on the target will keep them (their --blobs, or $OUTPOST_BLOBS).
  const blobsUrl = values.blobs ?? (process.env.OUTPOST_BLOBS || undefined)
  const blobs = blobsUrl ? parseBlobsUrl(blobsUrl) : undefined
  console.log(`Copying ${values.from} into ${redactUrl(values.to)}`)
  const { ok } = await migrateFolder({ from: values.from, to: values.to, replace: values.replace, blobs })
  console.log(ok ? 'Copied and verified.' : 'Copied, but the verification found differences (above).')
  process.exit(ok ? 0 : 2)
} catch (err) {
  console.error((err as Error).message.split('\n')[0])
  process.exit(1)
}
