/**
 * @module services
 * The backend's long-lived state: the main database and what is derived from it. Opened on
 * the first request (never on the worker's start-up path) and re-created after the worker
 * is stopped; nothing here is authoritative but the store.
 */
import type { Platform } from './platform/platform.ts'
import { Database } from './store/database.ts'
import { migrateMain } from './store/schema.ts'
import { Authenticator, provisionUsers } from './auth/service.ts'
import { provisionRoot } from './resource/service.ts'
import { createDemo, createDemoFeatures } from './demo.ts'

export interface Services {
  platform: Platform
  main: Database
  auth: Authenticator
  /** True when this start created the administrator (a fresh database). */
  adminCreated: boolean
}

export async function openServices(platform: Platform): Promise<Services> {
  const sqlite = await platform.sqlite()
  const main = await Database.open(sqlite, platform.store, 'main', migrateMain)
  const adminCreated = await provisionUsers(main, platform.admin)
  await provisionRoot(main, platform.now())
  const demo = adminCreated && platform.demo ? await createDemo(main, platform.now()) : undefined
  const services: Services = { platform, main, auth: new Authenticator(main, () => platform.now().getTime()), adminCreated }
  if (demo) await createDemoFeatures(services, demo)
  return services
}
