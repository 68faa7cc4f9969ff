import type { ApiKeyScope } from '@fairlane/core'
import type { BodyClass } from '../../http/body-limit-classes'
import type { WebContainer } from '../../web-container'
import type { Operation } from '../v1/openapi/operation-helpers'

/**
 * The shape of one route of the catalog and of the table built from it. Paths use `:name` for one
 * path segment and a trailing `*name` for one or more.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

type ParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : Path extends `${string}/*${infer Rest}`
      ? Rest
      : never

export type RouteParams<Path extends string> = { [Name in ParamNames<Path>]: string }

/** What handlers may take from the container (a test can pass just these). */
export type RouteDeps = Pick<
  WebContainer,
  'api' | 'admin' | 'database' | 'redis' | 'auth' | 'logger' | 'tracking'
>

export type RouteHandler<Path extends string> = (
  request: Request,
  params: RouteParams<Path>,
  deps: RouteDeps,
) => Response | Promise<Response>

/** A route of the table the web entry's fast path answers (`fast-path/router.ts`). */
export interface ApiRoute<Path extends string = string> {
  method: HttpMethod
  path: Path
  /** `/api/v1` routes only: the API key scope the route needs (`authorizeApiCall` enforces it). */
  scope?: ApiKeyScope
  /** The class of body cap the web entry holds the route's requests to (`http/body-limits.ts`). */
  bodyLimit: BodyClass
  handle(request: Request, params: RouteParams<Path>, deps: RouteDeps): Response | Promise<Response>
}

/** What the OpenAPI document may depend on: `now` dates examples that must lie in the future. */
export interface DocumentContext {
  now: Date
}

/** The route's operation in the OpenAPI document (operationId, tags, request and response schemas, examples). */
export type OperationDocument = Operation | ((context: DocumentContext) => Operation)

export const API_V1 = '/api/v1/'

/** One route, declared once: what the table, the body caps and the document are built from. */
export interface RouteDeclaration<Path extends string = string> {
  method: HttpMethod
  path: Path
  /** `/api/v1` only: `sending` opens the route to sending keys; `full` keeps it to full keys. */
  scope?: ApiKeyScope
  /** The web entry's cap on the request body, by class (`BODY_LIMITS`). */
  bodyLimit: BodyClass
  /** `/api/v1` only: the route's operation in the OpenAPI document. */
  openapi?: OperationDocument
  handle: RouteHandler<Path>
}

/**
 * A `/api/v1` route must name its API key scope and its operation in the OpenAPI document (the
 * document covers all of `/api/v1`, so there is no opting out); other routes (admin, auth, health,
 * tracking) have neither.
 */
type ScopeAndDocument<Path extends string> = Path extends `${typeof API_V1}${string}`
  ? { scope: ApiKeyScope; openapi: OperationDocument }
  : { scope?: never; openapi?: never }

/** Declares a route with its path's parameters typed for the handler (an identity at run time). */
export function declareRoute<const Path extends string>(
  declaration: RouteDeclaration<Path> & ScopeAndDocument<Path>,
): RouteDeclaration<Path> {
  return declaration
}

/**
 * The table's entry for a declaration. A `/api/v1` handler is given the route's scope with its deps
 * (`ApiDeps.requiredScope`), and `authorizeApiCall`, where every `/api/v1` call starts, refuses a key
 * without it; so the scope declared is the scope enforced.
 */
export function toApiRoute<Path extends string>(declaration: RouteDeclaration<Path>): ApiRoute<Path> {
  const { method, path, bodyLimit, handle } = declaration
  const scope = declaration.scope
  if (scope === undefined) return { method, path, bodyLimit, handle }
  return {
    method,
    path,
    scope,
    bodyLimit,
    handle: (request, params, deps) =>
      handle(request, params, { ...deps, api: { ...deps.api, requiredScope: scope } }),
  }
}

/**
 * A table entry outside the catalog (tests of the entry and the router build small tables with it).
 * A `/api/v1` path gets the `full` scope unless `{ scope: 'sending' }` is given, as in the catalog.
 */
export function route<Path extends string>(
  method: HttpMethod,
  path: Path,
  handle: RouteHandler<Path>,
  options: { scope?: ApiKeyScope; bodyLimit?: BodyClass } = {},
): ApiRoute<Path> {
  const bodyLimit = options.bodyLimit ?? defaultBodyClass(path)
  if (!path.startsWith(API_V1)) return { method, path, bodyLimit, handle }
  const scope = options.scope ?? 'full'
  return toApiRoute({ method, path, bodyLimit, handle, scope })
}

function defaultBodyClass(path: string): BodyClass {
  if (path.startsWith('/api/auth/')) return 'auth'
  return path.startsWith('/api/') ? 'api' : 'pages'
}
