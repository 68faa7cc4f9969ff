/**
 * The route catalog: every route of the web process's route table (`/api/**` and the tracking paths
 * `/t/o/:token`, `/t/c/:token`) is declared here once, in a file per resource, with its method, path,
 * API key scope, body cap, OpenAPI operation (request and response schemas, examples) and handler.
 * Built from it: the route table (`API_ROUTES`, which the web entry's fast path answers), the body
 * caps the entry holds each request to (`http/body-limits.ts`) and the OpenAPI document served at
 * `GET /api/v1/openapi.json` (`buildOpenApiDocument`).
 *
 * How to add a route:
 * 1. Write the handler where its resource's handlers are (`api/v1/<resource>.ts`, `api/admin/<verb>.ts`):
 *    `(request, ...params, deps.api | deps.admin) => Response`.
 * 2. Declare it in the resource's file here (a new resource gets a new file, added to `GROUPS` below,
 *    or for `/api/v1` to `PUBLIC_API_GROUPS` in `public-api.ts`):
 *    ```ts
 *    listMessages: declareRoute({
 *      method: 'GET',
 *      path: '/api/v1/messages',
 *      scope: 'full',          // `/api/v1` only, required: 'sending' opens it to sending keys
 *      bodyLimit: 'api',       // a class of `BODY_LIMITS`; a new class goes there
 *      handle: (request, _, deps) => listMessages(request, deps.api),
 *      openapi: { operationId: 'listMessages', tags: ['Messages'], summary: '…', responses: responses(…) },
 *    }),
 *    ```
 *    `/api/v1` routes must have `scope` and `openapi` (the types refuse one without); other routes
 *    (admin, auth, health, tracking) must have neither. Name the request schema with `.meta({ id })` next to the route; add a named response
 *    schema to `components` in `v1/openapi/document.ts` if other schemas refer to it.
 * 3. Nothing else: the table, the body caps and the document follow. `catalog.test.ts` refuses a name or
 *    a method and path declared twice and a `/api/v1` route without scope, cap or operation;
 *    `openapi/document.test.ts` checks the document; `api-key-scopes.int.test.ts` walks every scope.
 */
import { adminConsoleRoutes } from './admin-console'
import { adminDeadLetterRoutes } from './admin-dead-letters'
import { adminTenantRoutes } from './admin-tenants'
import { assembleCatalog, buildRouteTable, type RouteGroup } from './assemble'
import { authRoutes } from './auth'
import type { RouteDeclaration } from './define'
import { healthRoutes } from './health'
import { PUBLIC_API_GROUPS } from './public-api'
import { trackingRoutes } from './tracking'

/** In this order the router tries the paths (the public API's in `public-api.ts`). */
const GROUPS = [
  trackingRoutes,
  ...PUBLIC_API_GROUPS,
  authRoutes,
  healthRoutes,
  adminTenantRoutes,
  adminDeadLetterRoutes,
  adminConsoleRoutes,
] as const satisfies readonly RouteGroup[]

export const CATALOG = assembleCatalog(GROUPS)

/** Every declaration, in catalog order. */
export const CATALOG_ROUTES: readonly RouteDeclaration[] = Object.values(CATALOG as RouteGroup)

/** The route table: the same names, each with the scope wrapped into its handler's deps. */
export const API_ROUTES = buildRouteTable<typeof GROUPS>(CATALOG)

export { buildOpenApiDocument } from './public-api'
