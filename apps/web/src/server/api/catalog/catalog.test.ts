import { describe, expect, it } from 'vitest'
import { BODY_LIMITS, bodyLimitOf } from '../../http/body-limits'
import { assembleCatalog } from './assemble'
import { declareRoute } from './define'
import { API_ROUTES, buildOpenApiDocument, CATALOG, CATALOG_ROUTES } from './index'

const ok = () => new Response(null, { status: 204 })
const operation = { operationId: 'x', tags: ['Messages'] as ['Messages'], summary: 'x', responses: {} }

/** A request path for a route's path: each `:param` and `*rest` given a value. */
const concrete = (path: string) => path.replace(/[:*][A-Za-z]+/g, 'x1')

describe('the route catalog', () => {
  it('refuses a name declared twice, in two resources', () => {
    const first = { health: declareRoute({ method: 'GET', path: '/api/a', bodyLimit: 'api', handle: ok }) }
    const second = { health: declareRoute({ method: 'GET', path: '/api/b', bodyLimit: 'api', handle: ok }) }
    expect(() => assembleCatalog([first, second])).toThrow('route name health is declared twice')
  })

  it('refuses a method and path declared twice under two names', () => {
    const first = { one: declareRoute({ method: 'POST', path: '/api/a/:id', bodyLimit: 'api', handle: ok }) }
    const second = { two: declareRoute({ method: 'POST', path: '/api/a/:id', bodyLimit: 'api', handle: ok }) }
    expect(() => assembleCatalog([first, second])).toThrow('POST /api/a/:id is declared twice: one and two')
    // The same path with another method is another route.
    const third = { three: declareRoute({ method: 'GET', path: '/api/a/:id', bodyLimit: 'api', handle: ok }) }
    expect(Object.keys(assembleCatalog([first, third]))).toEqual(['one', 'three'])
  })

  it('does not compile a /api/v1 route without its scope or operation, nor another route with them', () => {
    // @ts-expect-error a /api/v1 route needs a scope
    declareRoute({ method: 'GET', path: '/api/v1/a', bodyLimit: 'api', handle: ok, openapi: operation })
    // @ts-expect-error a /api/v1 route needs its operation in the document
    declareRoute({ method: 'GET', path: '/api/v1/a', scope: 'full', bodyLimit: 'api', handle: ok })
    // @ts-expect-error only /api/v1 routes have a scope
    declareRoute({ method: 'GET', path: '/api/admin/a', scope: 'full', bodyLimit: 'api', handle: ok })
    // @ts-expect-error every route names its body cap
    declareRoute({ method: 'GET', path: '/api/admin/a', handle: ok })
    const declared = declareRoute({
      method: 'GET',
      path: '/api/v1/a/:id',
      scope: 'full',
      bodyLimit: 'api',
      handle: (_, { id }) => Response.json({ id }),
      openapi: operation,
    })
    expect(declared.path).toBe('/api/v1/a/:id')
  })

  it('makes the table from every declaration, under the same names, with the declared scope', () => {
    expect(Object.keys(API_ROUTES)).toEqual(Object.keys(CATALOG))
    for (const [name, route] of Object.entries(API_ROUTES)) {
      const declared = CATALOG[name as keyof typeof CATALOG]
      expect([route.method, route.path, route.scope, route.bodyLimit], name).toEqual([
        declared.method,
        declared.path,
        declared.scope,
        declared.bodyLimit,
      ])
    }
  })

  it('gives every /api/v1 route a scope, a body cap and an operation, and no other route a scope or operation', () => {
    const v1 = CATALOG_ROUTES.filter((route) => route.path.startsWith('/api/v1/'))
    expect(v1.length).toBeGreaterThanOrEqual(40)
    for (const route of CATALOG_ROUTES) {
      const key = `${route.method} ${route.path}`
      expect(Object.keys(BODY_LIMITS), key).toContain(route.bodyLimit)
      if (route.path.startsWith('/api/v1/')) {
        expect(['full', 'sending'], key).toContain(route.scope)
        expect(route.openapi, key).toBeDefined()
      } else {
        expect(route.scope, key).toBeUndefined()
        expect(route.openapi, key).toBeUndefined()
      }
    }
  })

  it('gives each operation its own operationId', () => {
    const document = buildOpenApiDocument()
    const ids = Object.values(document.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).map((op) => op.operationId),
    )
    expect(ids.length).toBe(CATALOG_ROUTES.filter((route) => route.openapi !== undefined).length)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('caps each route’s requests as it declares (or more, where another route shares the path)', () => {
    for (const route of CATALOG_ROUTES) {
      const limit = bodyLimitOf(concrete(route.path))
      expect(limit.maxBytes, `${route.method} ${route.path}`).toBeGreaterThanOrEqual(
        BODY_LIMITS[route.bodyLimit],
      )
    }
    expect(bodyLimitOf('/api/v1/contacts').class).toBe(CATALOG.postContacts.bodyLimit)
    expect(bodyLimitOf('/api/v1/suppressions/import').class).toBe(CATALOG.importSuppressions.bodyLimit)
  })
})
