import { z } from 'zod'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import { WEBHOOK_URL_MAX_LENGTH } from './address-rules'
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types'

export const WEBHOOK_DESCRIPTION_MAX = 200

const VALID_EVENTS = `valid event types: ${WEBHOOK_EVENT_TYPES.join(', ')}`

// Longer than the rule's 2,048 so the rule, not the schema, answers "at most 2048 characters (got n)".
const url = z
  .string({ error: 'is required (an https:// URL)' })
  .max(WEBHOOK_URL_MAX_LENGTH * 4)
  .meta({
    description: `Where events are POSTed: https, at most ${WEBHOOK_URL_MAX_LENGTH} characters, a public address`,
    example: 'https://example.com/webhooks/fairlane',
  })

const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `is not an event type; ${VALID_EVENTS}` }), {
    error: `is required: a list of event types (${VALID_EVENTS})`,
  })
  .min(1, `must name at least one event type (${VALID_EVENTS})`)
  .max(50, 'must name at most 50 event types')
  // The same type twice is one subscription.
  .transform((list): WebhookEventType[] => [...new Set(list)])
  .meta({ description: 'The event types to receive', example: ['email.sent', 'email.bounced'] })

const description = z
  .string()
  .trim()
  .max(WEBHOOK_DESCRIPTION_MAX, `must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`)
  .nullable()
  .optional()
  .meta({ description: 'A note for you, e.g. which service receives it' })

/** `POST /api/v1/webhooks`'s body. */
export const newWebhookEndpointSchema = z.strictObject({ url, events, description })

/** `PATCH /api/v1/webhooks/:id`'s body: any of the fields, the rest stays. */
export const webhookEndpointPatchSchema = z.strictObject({
  url: url.optional(),
  events: events.optional(),
  description,
  enabled: z.boolean({ error: 'must be true or false' }).optional().meta({
    description: 'false stops deliveries (they wait); true again also clears a disable for failing',
  }),
})

export type NewWebhookEndpoint = z.output<typeof newWebhookEndpointSchema>
export type WebhookEndpointPatch = z.output<typeof webhookEndpointPatchSchema>

/** A body the schema refuses is a 400 naming each field (an unknown event type lists the valid ones). */
export function parseNewWebhookEndpoint(body: unknown): NewWebhookEndpoint {
  const parsed = newWebhookEndpointSchema.safeParse(body)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return parsed.data
}

export function parseWebhookEndpointPatch(body: unknown): WebhookEndpointPatch {
  const parsed = webhookEndpointPatchSchema.safeParse(body)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return parsed.data
}
