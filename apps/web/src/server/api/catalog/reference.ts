import { getOpenApiDocument } from '../v1/get-openapi'
import type { OpenApiDocument } from '../v1/openapi/document'
import { declareRoute } from './define'

/**
 * The API's OpenAPI document: public, no key. It is built from the catalog this route belongs to, so
 * the catalog hands the builder in (`catalog/index.ts`) rather than this file importing it back.
 */
export function referenceRoutes(buildDocument: () => OpenApiDocument) {
  return {
    openApiDocument: declareRoute({
      method: 'GET',
      path: '/api/v1/openapi.json',
      scope: 'full',
      bodyLimit: 'api',
      handle: (request) => getOpenApiDocument(request, buildDocument),
      openapi: {
        operationId: 'getOpenApiDocument',
        tags: ['Reference'],
        summary: 'This document',
        description: 'OpenAPI 3.1, generated from the schemas that validate requests. No key needed.',
        security: [],
        responses: {
          '200': {
            description: 'The document',
            headers: {
              ETag: { description: 'Send it back in If-None-Match to get a 304', schema: { type: 'string' } },
            },
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          '304': { description: 'Unchanged since the ETag given in If-None-Match' },
        },
      },
    }),
  }
}
