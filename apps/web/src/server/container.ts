import 'server-only'
import { loadConfig } from '@fairlane/config'
import {
  buildWebContainer,
  registeredWebContainer,
  registerWebContainer,
  type WebContainer,
} from './web-container'

export type { WebContainer }

/**
 * The container Next.js's pages, server actions and route files use: the one the web entry
 * (`main.ts`) built and registered at boot. Resolved on first use, not on import, because Next.js
 * imports these modules at build time. Only when Next.js runs without the entry (`next start` by
 * hand) is there none yet; then it is built here, once, and registered the same way.
 */
export function container(): WebContainer {
  const registered = registeredWebContainer()
  if (registered) return registered
  const built = buildWebContainer(loadConfig())
  registerWebContainer(built)
  built.logger.warn(
    { entry: 'apps/web/src/server/main.ts' },
    'web container built by Next.js: no web entry registered one (run the web entry, not next start)',
  )
  return built
}
