import { createHash } from 'node:crypto'
import type { OpenApiDocument } from './openapi/document'

interface Served {
  body: string
  etag: string
}

let served: Served | undefined

/** Built on first use and kept for the process: the document changes only with a deploy. */
function document(build: () => OpenApiDocument): Served {
  if (!served) {
    const body = JSON.stringify(build())
    served = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
  }
  return served
}

/**
 * `GET /api/v1/openapi.json`: the API's OpenAPI 3.1 document, public (no key) and cacheable; a
 * client that sends back the ETag in If-None-Match gets a 304.
 */
export function getOpenApiDocument(request: Request, build: () => OpenApiDocument): Response {
  const { body, etag } = document(build)
  const headers = {
    etag,
    'cache-control': 'public, max-age=300',
    // Code generators and API consoles fetch it from other origins; it holds nothing private.
    'access-control-allow-origin': '*',
  }
  const ifNoneMatch = request.headers.get('if-none-match')
  if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
    return new Response(null, { status: 304, headers })
  }
  return new Response(body, { headers: { ...headers, 'content-type': 'application/json; charset=utf-8' } })
}
