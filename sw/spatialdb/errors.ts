/**
 * @module spatialdb/errors
 * The spatialdb component's refusals.
 */
import { validationError } from '../core/error.ts'

/** The service worker cannot open a database connection (no sockets in a browser). */
export const noDatabaseHere = () =>
  validationError('This server cannot open a database connection in the browser; create it on a team\'s server (an Outpost Node host) and take its layers offline by sync.')

/** A reference to a connection that is not one. */
export const notAConnection = (id: number, at: string) =>
  validationError(`Resource id = ${id} is not a PostGIS connection - at \`${at}\``, { location: ['body', ...at.replace(/^\$\.?/, '').split('.')] })
