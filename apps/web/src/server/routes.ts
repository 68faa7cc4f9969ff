/**
 * The HTTP API's one route table: which handler answers which method and path, and with which of
 * the container's dependencies. It is the only way into `/api/**`: the web entry's fast path
 * (`fast-path/`) answers these routes without Next.js, and any other `/api` path gets a 404 (or a
 * 405 naming the methods its path has) from the entry too; there are no Next.js route files under
 * `src/app/api`.
 *
 * The table is built from the route catalog (`api/catalog/`), where each route is declared once with
 * its scope, body cap and OpenAPI operation; add routes there, not here.
 */
export { API_ROUTES } from './api/catalog'
export type { ApiRoute, HttpMethod, RouteDeps, RouteParams } from './api/catalog/define'
export { route } from './api/catalog/define'
