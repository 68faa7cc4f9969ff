import 'server-only'
import { unsubscribeKey } from '@fairlane/core'
import { container } from '../container'
import type { UnsubscribeDeps } from './unsubscribe-page'

let deps: UnsubscribeDeps | undefined

/** Built from the container on first use; the keys are derived once (UNSUBSCRIBE_SECRET, and SESSION_SECRET for old links). */
export function unsubscribeDeps(): UnsubscribeDeps {
  if (deps) return deps
  const { config, database, logger } = container()
  deps = {
    db: database.db,
    key: unsubscribeKey({ secrets: config.UNSUBSCRIBE_SECRET, sessionSecret: config.SESSION_SECRET }),
    clock: { now: () => new Date() },
    logger,
  }
  return deps
}

/** `APP_URL/u/<token>`: the address in the footer and the List-Unsubscribe header. */
export function unsubscribeUrl(token: string): string {
  return new URL(`/u/${token}`, container().config.APP_URL).toString()
}
