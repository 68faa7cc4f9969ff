import type { Clock } from '@fairlane/core/accept'
import type { Database } from '@fairlane/db'
import type { Queues } from '@fairlane/queue'
import type { Logger } from '../../logger'

/** What the `/api/admin` handlers need. `queues` is a function: BullMQ queues are made on first use. */
export interface AdminDeps {
  db: Database
  /** `ADMIN_TOKEN`; undefined closes the admin API. */
  adminToken: string | undefined
  queues(): Queues
  logger: Logger
  clock: Clock
}

/** Admin request bodies are small; 16 KB is generous. */
export const MAX_ADMIN_BODY_BYTES = 16 * 1024
