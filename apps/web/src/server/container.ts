import 'server-only'
import { loadConfig } from '@fairlane/config'
import { type Auth, createAuth } from './auth/better-auth'
import { type ApiContainer, buildApiContainer, keepNextJsContainer } from './web-container'

/**
 * The composition root of the web app's Next.js side (pages, server actions, route files): the API's
 * clients (web-container.ts) plus better-auth. Built on first use, not on import, because Next.js
 * imports route modules at build time. Under `pnpm start` the web process's entry (`main.ts`) has
 * already checked the environment at boot and answers the API routes with its own container; this
 * one opens its pool connections only when a page or action needs them.
 */
export interface WebContainer extends ApiContainer {
  auth: Auth
}

export function container(): WebContainer {
  return keepNextJsContainer(() => {
    const core = buildApiContainer(loadConfig(), { applicationName: 'web-next' })
    const auth = createAuth({
      db: core.database.db,
      secret: core.config.SESSION_SECRET,
      baseURL: core.config.APP_URL,
      throttle: core.authThrottle,
    })
    return { ...core, auth }
  })
}
