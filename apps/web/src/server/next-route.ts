import 'server-only'
import { container } from './container'
import type { ApiRoute, RouteDeps, RouteParams } from './routes'

/** The container, built only when a handler first reaches for it (so `/api/health/live` never does). */
const deps: RouteDeps = {
  get api() {
    return container().api
  },
  get admin() {
    return container().admin
  },
  get database() {
    return container().database
  },
  get redis() {
    return container().redis
  },
}

/**
 * A Next.js route handler for an entry of the route table (`routes.ts`): `export const POST =
 * nextRoute(API_ROUTES.postMessage)`. Under `pnpm start` the web process's fast path answers these
 * routes before Next.js sees them; this is the way in under `next dev` and anything else that runs
 * the app through Next.js alone.
 */
export function nextRoute<Path extends string>(route: ApiRoute<Path>) {
  return async (request: Request, context: { params: Promise<RouteParams<Path>> }): Promise<Response> =>
    route.handle(request, await context.params, deps)
}
