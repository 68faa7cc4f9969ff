import type { PlanDefinition, ProvisionTenantDeps } from '@fairlane/core'
import type { Clock } from '@fairlane/core/accept'
import type { Database } from '@fairlane/db'
import type { Queues, RedisClient } from '@fairlane/queue'
import type { Registry } from 'prom-client'
import type { SessionReader } from '../../auth/admin-access'
import type { Logger } from '../../logger'

/** What the `/api/admin` handlers need. `queues` is a function: BullMQ queues are made on first use. */
export interface AdminDeps {
  db: Database
  /** `ADMIN_TOKEN`; undefined closes the bearer way in (platform admin sessions still work). */
  adminToken: string | undefined
  /** The signed-in user of a request's session cookie (better-auth), for the console's own calls. */
  readSession: SessionReader
  /** APP_URL's origin; cookie-authenticated changes must come from it. */
  appOrigin: string
  queues(): Queues
  /** The queue Redis (token buckets' deferral counters); `QUEUE_PREFIX` names the keys. */
  redis: RedisClient
  queuePrefix: string
  /** This web process's Prometheus registry (`GET /api/admin/metrics`). */
  metrics: Registry
  /** `METRICS_TOKEN`: a scraper's bearer for `GET /api/admin/metrics` only; undefined: none. */
  metricsToken?: string | undefined
  /**
   * `RECEIVER_RULES`: the rules file the worker shapes MX mode by, whose ceilings and back-off
   * `GET /api/admin/receivers` reads states with. Undefined: the repository's defaults. A path, not
   * the rules: this module is in Next.js's bundles, where the rules module's file URL does not resolve.
   */
  receiverRulesPath?: string | undefined
  logger: Logger
  clock: Clock
  /** EGRESS_POOLS' names: the dedicated pools a tenant may be pinned to. */
  egressPools?: readonly string[]
  /** The named plans in force (`planCatalog(PLANS)`); unset: the built-in free, standard and pro. */
  plans?: Readonly<Record<string, PlanDefinition>>
  /** What provisioning needs besides the tenant: the sending domain's, the owner's invitation, the first key. */
  provisioning: AdminProvisioning
}

/** `POST /api/admin/tenants`' sending domain, owner invitation and first key. */
export type AdminProvisioning = Pick<ProvisionTenantDeps, 'domains' | 'owners' | 'apiKeys'>

/** Admin request bodies are small; a bulk action naming its 500 dead-letter ids fits in 64 KB. */
export const MAX_ADMIN_BODY_BYTES = 64 * 1024
