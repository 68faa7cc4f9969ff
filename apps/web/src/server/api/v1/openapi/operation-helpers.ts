import { z } from 'zod'
import type { oas31, ZodOpenApiOperationObject, ZodOpenApiResponsesObject } from 'zod-openapi'
import { errorResponse } from '../responses'
import { type ErrorStatus, errorResponses } from './error-responses'

/** What the document's operation tables share: the operation's shape, its tags and response helpers. */

export interface Operation extends ZodOpenApiOperationObject {
  operationId: string
  tags: [Tag]
  summary: string
}

export type Tag =
  | 'Messages'
  | 'Templates'
  | 'Campaigns'
  | 'Contacts'
  | 'Segments'
  | 'Suppressions'
  | 'Domains'
  | 'Webhooks'
  | 'Team'
  | 'Usage'
  | 'Reference'

export const idParam = (what: string) => ({
  path: z.object({
    id: z.string().meta({
      description: `The ${what}’s id (a UUID). Another tenant’s id answers 404, like a missing one.`,
      example: '0193c3d1-5b7e-7f2a-9c1d-2b3c4d5e6f70',
    }),
  }),
})

export const json = (schema: z.ZodType, description: string, headers?: oas31.HeadersObject) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
})

export const locationHeader = (what: string): oas31.HeadersObject => ({
  Location: { description: `The ${what}’s URL`, schema: { type: 'string' } },
})

export function responses(
  success: ZodOpenApiResponsesObject,
  failures: ErrorStatus[],
): ZodOpenApiResponsesObject {
  // Every call with a key can meet the key's scope or domain restriction (authorizeApiCall).
  const statuses = failures.includes(401) && !failures.includes(403) ? [...failures, 403 as const] : failures
  return {
    ...success,
    ...errorResponses(
      [...statuses].sort((a, b) => a - b),
      errorResponse,
    ),
  }
}
