import { documentRoutes, type OpenApiDocument } from '../v1/openapi/document'
import { assembleCatalog, type RouteGroup } from './assemble'
import { campaignRoutes } from './campaigns'
import { contactRoutes } from './contacts'
import type { RouteDeclaration } from './define'
import { domainRoutes } from './domains'
import { messageRoutes } from './messages'
import { referenceRoutes } from './reference'
import { segmentRoutes } from './segments'
import { senderRoutes } from './sender'
import { suppressionRoutes } from './suppressions'
import { teamRoutes } from './team'
import { templateRoutes } from './templates'
import { usageRoutes } from './usage'
import { webhookDeliveryRoutes } from './webhook-deliveries'
import { webhookRoutes } from './webhooks'

/**
 * The public API's part of the catalog (`/api/v1`), in the order the OpenAPI document lists its
 * operations. Apart from the whole catalog so the API reference page (`/api-docs`, rendered by
 * Next.js) can build the document without importing the admin console's and auth's handlers.
 */
export const PUBLIC_API_GROUPS = [
  messageRoutes,
  senderRoutes,
  templateRoutes,
  domainRoutes,
  campaignRoutes,
  contactRoutes,
  segmentRoutes,
  suppressionRoutes,
  webhookRoutes,
  webhookDeliveryRoutes,
  teamRoutes,
  usageRoutes,
  referenceRoutes(() => buildOpenApiDocument()),
] as const satisfies readonly RouteGroup[]

const PUBLIC_API_ROUTES: readonly RouteDeclaration[] = Object.values(
  assembleCatalog(PUBLIC_API_GROUPS) as RouteGroup,
)

/** The `/api/v1` OpenAPI 3.1 document of the catalog. `now` only dates the campaign examples. */
export function buildOpenApiDocument(options: { now?: Date } = {}): OpenApiDocument {
  return documentRoutes(PUBLIC_API_ROUTES, options)
}
