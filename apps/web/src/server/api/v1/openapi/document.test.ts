import { describe, expect, it } from 'vitest'
import { API_ROUTES } from '../../../routes'
import { checkOpenApiDocument } from '../../../test-support/openapi'
import { buildOpenApiDocument } from '../../catalog'
import { OPENAPI_PATH, openApiPath } from './document'

const document = buildOpenApiDocument({ now: new Date('2026-12-03T12:00:00Z') })
const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const

type Operation = {
  security?: unknown[]
  responses: Record<string, { headers?: Record<string, unknown> }>
  requestBody?: {
    content: Record<string, { schema: unknown; examples?: Record<string, { value: unknown }> }>
  }
}

/** The public API's routes, read from the route table itself: a route added there must be documented. */
const publicRoutes = Object.values(API_ROUTES).filter((route) => route.path.startsWith('/api/v1/'))

function operationsOf(paths: Record<string, Record<string, unknown>>): [string, Operation][] {
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map(
      (method) => [`${method.toUpperCase()} ${path}`, item[method] as Operation] as [string, Operation],
    ),
  )
}

describe('the OpenAPI document', () => {
  it('documents every /api/v1 route of the route table, and nothing the table lacks', () => {
    expect(publicRoutes.length).toBeGreaterThanOrEqual(7)
    const documented = operationsOf(document.paths as Record<string, Record<string, unknown>>)
      .map(([key]) => key)
      .sort()
    const served = publicRoutes.map((route) => `${route.method} ${openApiPath(route.path)}`).sort()
    expect(documented).toEqual(served)
  })

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0')
    const checked = await checkOpenApiDocument(document)
    expect(checked.errors).toBeUndefined()
    expect(checked.valid).toBe(true)
  })

  it('asks for the bearer key everywhere but on itself, and says what 401 and 429 look like', () => {
    expect(document.components?.securitySchemes?.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(document.security).toEqual([{ apiKey: [] }])
    for (const [key, operation] of operationsOf(document.paths as Record<string, Record<string, unknown>>)) {
      if (key === `GET ${OPENAPI_PATH}`) {
        expect(operation.security).toEqual([])
        continue
      }
      expect(operation.security, key).toBeUndefined()
      expect(operation.responses['401'], key).toBeDefined()
      // A key's scope or domain restriction may refuse any call (403 naming it).
      expect(operation.responses['403'], key).toBeDefined()
      expect(Object.keys(operation.responses['429']?.headers ?? {}), key).toEqual(['Retry-After'])
    }
  })

  it('takes Idempotency-Key on POST /api/v1/messages', () => {
    const post = document.paths?.['/api/v1/messages']?.post
    expect(post?.parameters).toEqual([
      expect.objectContaining({ in: 'header', name: 'Idempotency-Key', schema: expect.any(Object) }),
    ])
  })

  it('gives examples that fit their own request schemas, and the schemas refuse what the handlers refuse', async () => {
    const checked = await checkOpenApiDocument(document)
    const resolved = operationsOf(checked.resolved.paths as Record<string, Record<string, unknown>>)
    let examples = 0
    for (const [key, operation] of resolved) {
      const media = operation.requestBody?.content['application/json']
      if (!media) continue
      for (const [name, example] of Object.entries(media.examples ?? {})) {
        examples += 1
        const fit = checked.fits(media.schema, example.value)
        expect(fit.ok, `${key} example ${name}: ${fit.errors}`).toBe(true)
      }
      // An unknown field is refused by every request schema, as by the handlers.
      const first = Object.values(media.examples ?? {})[0]?.value as Record<string, unknown>
      expect(checked.fits(media.schema, { ...first, surprise: 1 }).ok, key).toBe(false)
    }
    expect(examples).toBeGreaterThanOrEqual(6)
  })
})
