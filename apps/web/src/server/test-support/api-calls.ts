import { expect } from 'vitest'
import { createRouter } from '../fast-path/router'
import { API_ROUTES, type RouteDeps } from '../routes'
import { jsonRequest, readJson, type WebHarness } from './harness'
import type { CheckedDocument } from './openapi'

const router = createRouter(Object.values(API_ROUTES))

/** The route-table view of a harness: what the web entry hands a handler. */
export function routeDeps(harness: WebHarness, api: RouteDeps['api']): RouteDeps {
  return {
    api,
    admin: harness.adminDeps(),
    database: harness.database,
    redis: harness.redis,
    auth: harness.auth,
    logger: harness.logger,
    tracking: harness.trackingDeps(),
  }
}

/** Sends a request as the web entry does: looked up in the route table, answered by its handler. */
export async function callRoute(
  deps: RouteDeps,
  method: string,
  path: string,
  options: { body?: unknown; token?: string | null } = {},
): Promise<Response> {
  const lookup = router(method, path)
  if (lookup?.kind !== 'route') throw new Error(`${method} ${path} is not in the route table`)
  const request = jsonRequest(path, { method, token: options.token ?? null, body: options.body })
  return lookup.route.handle(request, lookup.params, deps)
}

interface DocumentedOperation {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>
}

/**
 * The answer's body, after checking that its status is one the document gives for the operation
 * (`/api/v1/webhooks/{id}`, `get`) and that the body fits that status's schema.
 */
export async function documentedAnswer<T = Record<string, unknown>>(
  checked: CheckedDocument,
  operation: { path: string; method: string },
  response: Response,
): Promise<T> {
  const paths = checked.resolved.paths as Record<string, Record<string, DocumentedOperation>>
  const op = paths[operation.path]?.[operation.method]
  if (!op) throw new Error(`the document has no ${operation.method} ${operation.path}`)
  const body = await readJson(response)
  const schema = op.responses[String(response.status)]?.content?.['application/json']?.schema
  expect(
    schema,
    `${operation.method} ${operation.path} answered an undocumented ${response.status}`,
  ).toBeDefined()
  const fit = checked.fits(schema, body)
  expect(
    fit.ok,
    `${operation.method} ${operation.path} ${response.status} ${JSON.stringify(body)}: ${fit.errors}`,
  ).toBe(true)
  return body as T
}
