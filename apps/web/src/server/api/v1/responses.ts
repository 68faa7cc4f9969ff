import {
  CAMPAIGN_STATUSES,
  DOMAIN_RECORD_PURPOSES,
  DOMAIN_STATUSES,
  LANES,
  MESSAGE_EVENT_TYPES,
  MESSAGE_STATUSES,
  SUPPRESSION_REASONS,
  SUPPRESSION_SCOPES,
  segmentFilterSchema,
} from '@fairlane/core'
import { DELIVERY_ERROR_CODES } from '@fairlane/core/delivery'
import { APP_ERROR_CODES, RATE_LIMIT_NAMES } from '@fairlane/core/errors'
import { z } from 'zod'

/**
 * What the `/api/v1` handlers answer, as schemas: the API document (`openapi/document.ts`) renders
 * them, and each handler's body is checked against the type at compile time (`satisfies`), so a
 * field a handler adds or drops without changing its schema does not compile. The integration test
 * (`openapi.int.test.ts`) also validates real answers against the document.
 */

const id = z
  .uuid()
  .meta({ description: 'The id Fairlane gave it', example: '0193c3d1-5b7e-7f2a-9c1d-2b3c4d5e6f70' })
const instant = z.iso.datetime().meta({ description: 'An ISO 8601 instant in UTC' })

export const messageAcceptedResponse = z
  .object({
    id,
    status: z
      .enum(['queued', 'scheduled'])
      .meta({ description: '`scheduled` when `sendAt` is ahead: it waits until then, cancellable' }),
    lane: z
      .enum(LANES)
      .meta({ description: '`critical` for otp, password-reset and verify-email, `default` for the rest' }),
  })
  .meta({
    description:
      'The message was accepted and queued (or an earlier request with this Idempotency-Key was replayed).',
  })
export type MessageAcceptedResponse = z.input<typeof messageAcceptedResponse>

export const messageEventResponse = z
  .object({
    type: z.enum(MESSAGE_EVENT_TYPES).meta({
      description:
        '`accepted` (created by the API or a campaign), `queued` (a delivery job exists), `deferred` (waiting for your plan’s rate), `sent` (the receiving server said 250), `retrying` (a temporary error; another attempt follows), `failed` (for good), `bounced` and `complained` (reported later by the receiving side), `suppressed` (skipped: the address is suppressed), `unsubscribed` (the recipient used this message’s link), `opened`, `clicked`',
    }),
    at: instant,
    detail: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          'What the event says beyond its type: `sent` `{ response }` (the server’s reply), `retrying` `{ code, attempt }`, `failed` `{ code, attempts }`, `deferred` `{ untilMs, provider?, reply? }` (MX mode: the receiving provider that deferred it, and its reply), `queued` and `accepted` `{ lane, campaignId? }`, `suppressed` `{ reason }`, `bounced` `{ kind, status, action, diagnostic? }`, `complained` `{ feedbackType }`, `unsubscribed` `{ source }`',
        example: { response: '250 2.0.0 OK id=1x2y3z' },
      }),
  })
  .meta({ id: 'MessageEvent' })

export const messageResponse = z.object({
  id,
  status: z.enum(MESSAGE_STATUSES).meta({
    description: '`bounced` and `complained` come after `sent`, when the receiving side reports it later',
  }),
  lane: z.enum(LANES),
  attempts: z.int().min(0).meta({ description: 'SMTP attempts made so far' }),
  lastErrorCode: z.enum(DELIVERY_ERROR_CODES).optional().meta({
    description: 'What went wrong with the last attempt, classified (the raw SMTP reply is for admins)',
  }),
  lastError: z.string().optional().meta({ description: 'A short reason for `lastErrorCode`' }),
  createdAt: instant,
  sentAt: instant.optional(),
  sendAt: instant.optional().meta({ description: 'When a scheduled message is (or was) due' }),
  bodyRemovedAt: instant
    .optional()
    .meta({ description: 'When the retention cleared the body, variables and rendered content' }),
  attachments: z
    .array(
      z.object({
        filename: z.string(),
        contentType: z.string(),
        size: z.int().min(0).meta({ description: 'Decoded size in bytes' }),
      }),
    )
    .meta({
      description:
        'The files it carries (API attachments, or those of a message submitted over SMTP); empty once the body retention removed them',
    }),
  events: z.array(messageEventResponse).meta({
    description:
      'What happened to the message, oldest first (kept for the event retention, 30 days by default)',
  }),
})
export type MessageResponse = z.input<typeof messageResponse>

export const messageCancelledResponse = z.object({ id, status: z.literal('cancelled') })
export type MessageCancelledResponse = z.input<typeof messageCancelledResponse>

export const messageListItemResponse = z.object({
  id,
  to: z.string(),
  subject: z.string().nullable(),
  status: z.enum(MESSAGE_STATUSES),
  lane: z.enum(LANES),
  campaignId: z.uuid().optional().meta({ description: 'Set for a campaign’s delivery' }),
  createdAt: instant,
  sentAt: instant.optional(),
  sendAt: instant.optional().meta({ description: 'A scheduled message’s time' }),
})

export const messageListResponse = z.object({
  items: z.array(messageListItemResponse).meta({ description: 'Newest first' }),
  nextCursor: z
    .string()
    .optional()
    .meta({ description: 'Pass as `cursor` for the next (older) page; absent on the last page' }),
})
export type MessageListResponse = z.input<typeof messageListResponse>

export const batchResultResponse = z.union([
  z.object({ index: z.int().min(0), status: z.literal(202), id }),
  z.object({
    index: z.int().min(0),
    status: z.int().min(400).max(499),
    error: z.object({ code: z.enum(APP_ERROR_CODES), message: z.string(), details: z.unknown().optional() }),
  }),
])

export const batchAcceptedResponse = z.object({
  results: z.array(batchResultResponse).meta({ description: 'One per item, in the order given' }),
})
export type BatchAcceptedResponse = z.input<typeof batchAcceptedResponse>

const campaignWarning = z.object({
  code: z.literal('empty-audience'),
  message: z.string(),
})

export const campaignScheduledResponse = z.object({
  id,
  status: z.enum(['draft', 'scheduled']),
  sendAt: instant.nullable(),
  warnings: z
    .array(campaignWarning)
    .meta({ description: 'What was accepted but deserves a look, e.g. an audience that is empty now' }),
})
export type CampaignScheduledResponse = z.input<typeof campaignScheduledResponse>

const count = z.int().min(0)

export const campaignResponse = z.object({
  id,
  status: z.enum(CAMPAIGN_STATUSES),
  sendAt: instant.nullable(),
  from: z.string().nullable().meta({
    description: 'The From its mail is sent with; null: your default sender (as it is when dispatch starts)',
  }),
  replyTo: z.string().nullable(),
  counts: z
    .object({
      pending: count,
      queued: count.meta({ description: 'Queued or being sent' }),
      sent: count,
      failed: count,
      suppressed: count,
      cancelled: count.meta({ description: 'Not sent because the campaign was cancelled first' }),
      bounced: count.meta({ description: 'Sent, then reported as bounced by the receiving side' }),
      complained: count.meta({ description: 'Sent, then reported as spam by the recipient' }),
      opened: count.meta({
        description: 'Recipients who opened it (unique; bots and link scanners left out)',
      }),
      clicked: count.meta({
        description: 'Recipients who clicked a link (unique; bots and link scanners left out)',
      }),
    })
    .meta({ description: 'The campaign’s messages by status' }),
})
export type CampaignResponse = z.input<typeof campaignResponse>

export const campaignCancelledResponse = z.object({
  id,
  status: z.literal('cancelled'),
  sent: count.meta({ description: 'Messages already sent before the cancel' }),
  cancelled: count.meta({ description: 'Messages held back by this call (0 when it was cancelled before)' }),
})
export type CampaignCancelledResponse = z.input<typeof campaignCancelledResponse>

export const contactsUpsertedResponse = z.object({
  created: count,
  updated: count,
})
export type ContactsUpsertedResponse = z.input<typeof contactsUpsertedResponse>

const fieldIssue = z.object({
  path: z
    .string()
    .meta({ description: 'The field in dotted form, e.g. `variables.code` or `contacts[3].email`' }),
  message: z.string(),
})

/** `{ error: { code, message, details? } }`, as `http/errors.ts` and the entry's 404/405/413 answer it. */
export const errorResponse = z.object({
  error: z.object({
    code: z.enum([...APP_ERROR_CODES, 'method_not_allowed', 'internal_error']),
    message: z.string().meta({ description: 'In plain words, naming what is wrong' }),
    details: z
      .union([
        z.array(fieldIssue),
        z.object({ limit: z.enum(RATE_LIMIT_NAMES) }),
        z.object({ limitBytes: z.int() }),
      ])
      .optional()
      .meta({
        description:
          'Each invalid field (400, and 404/409/413/422 naming a field); for a 429 the limit that refused; for a 413 from the entry the byte limit',
      }),
  }),
})
export type ErrorResponse = z.input<typeof errorResponse>

export const suppressionEntryResponse = z.object({
  email: z.string().meta({ description: 'The suppressed address, lowercased' }),
  reason: z.enum(SUPPRESSION_REASONS),
  scope: z.enum(SUPPRESSION_SCOPES).meta({
    description:
      '`all`: every lane (bounces, complaints, manual entries); `marketing`: campaign mail only (unsubscribes)',
  }),
  lanes: z.array(z.enum(LANES)).meta({ description: 'The lanes this entry stops' }),
  createdAt: instant,
  detail: z.string().optional().meta({
    description:
      'Why, in the words of what caused it: a bounce’s diagnostic (`550 5.1.1 no such user`), a complaint’s feedback type, the note of a manual entry',
  }),
})
export type SuppressionEntryResponse = z.input<typeof suppressionEntryResponse>

export const suppressionsPageResponse = z.object({
  items: z.array(suppressionEntryResponse),
  nextCursor: z
    .string()
    .optional()
    .meta({ description: 'Pass as `cursor` for the next page; absent on the last' }),
})

export const suppressionsAddedResponse = z.object({
  items: z
    .array(suppressionEntryResponse)
    .meta({ description: 'Each address’s entry as it stands afterwards' }),
})

export const suppressionRemovedResponse = z.object({
  items: z.array(suppressionEntryResponse).length(1).meta({ description: 'The entry removed' }),
})

export const suppressionImportResponse = z.object({
  rows: z.int().meta({ description: 'Data rows read (the header and blank lines not counted)' }),
  added: z.int().meta({ description: 'Addresses that were not on the list' }),
  widened: z.int().meta({ description: 'Campaign-only entries (unsubscribes) widened to every lane' }),
  alreadySuppressed: z.int().meta({ description: 'Addresses already listed, left as they were' }),
  duplicates: z.int().meta({ description: 'Rows repeating an address of an earlier row (counted once)' }),
  blank: z.int(),
  rejected: z
    .array(
      z.object({
        line: z.int().meta({ description: 'Where the row starts in the file (the first line is 1)' }),
        email: z.string().nullable().meta({ description: 'The address cell as written' }),
        reason: z.string(),
      }),
    )
    .meta({ description: 'Every row not imported' }),
  header: z.boolean().meta({ description: 'Whether the first line was read as a header row' }),
  ignoredColumns: z.array(z.string()),
})

export const templateResponse = z.object({
  id,
  slug: z
    .string()
    .meta({ description: 'What `POST /api/v1/messages` names in `template`; fixed once created' }),
  name: z.string(),
  subject: z.string(),
  html: z.string().nullable(),
  text: z.string().nullable(),
  from: z.string().nullable().meta({
    description: 'The From of mail sent with it unless the request names one; null: your default sender',
  }),
  replyTo: z.string().nullable().meta({ description: 'Its Reply-To; null: your default Reply-To' }),
  version: z.int().min(1).meta({ description: 'Raised by each change of subject, HTML or text' }),
  createdAt: instant,
  updatedAt: instant,
})
export type TemplateResponse = z.input<typeof templateResponse>

/** A template in the list: everything but `html` and `text` (`GET /api/v1/templates/:slug` has them). */
export const templateSummaryResponse = templateResponse.omit({ html: true, text: true })
export type TemplateSummaryResponse = z.input<typeof templateSummaryResponse>

export const templatesResponse = z.object({
  items: z.array(templateSummaryResponse),
  nextCursor: z
    .string()
    .optional()
    .meta({ description: 'Pass as `cursor` for the next page; absent on the last' }),
})

export const templateDeletedResponse = z.object({ deleted: z.literal(true), id, slug: z.string() })

export const segmentResponse = z.object({
  id,
  name: z.string(),
  filter: segmentFilterSchema,
  text: z.string().meta({
    description: 'The filter as the contacts page writes it, e.g. `city = Berlin and plan in (pro, team)`',
  }),
  createdAt: instant,
})
export type SegmentResponse = z.input<typeof segmentResponse>

export const segmentsResponse = z.object({ items: z.array(segmentResponse) })

export const segmentWithAudienceResponse = segmentResponse.extend({
  audience: z
    .object({
      recipients: z.int().min(0).meta({ description: 'Subscribed, unsuppressed contacts matching now' }),
      unsubscribed: z.int().min(0),
      suppressed: z.int().min(0),
    })
    .meta({ description: 'Counted now; a campaign resolves the segment again at its send time' }),
})

export const defaultSenderResponse = z.object({
  from: z.string().nullable().meta({
    description: 'The From of mail that names none; null: the platform’s address with your name',
  }),
  replyTo: z.string().nullable().meta({ description: 'The Reply-To of mail that names none; null: none' }),
})
export type DefaultSenderResponse = z.input<typeof defaultSenderResponse>

const recordStatus = z.enum(['pending', 'verified', 'failed'])

export const domainRecordResponse = z.object({
  purpose: z.enum(DOMAIN_RECORD_PURPOSES).meta({
    description:
      '`dkim` signs your mail; `return-path` carries bounces back to Fairlane; `ownership` proves the domain is yours when another account added it first; `spf` and `dmarc` are recommended',
  }),
  type: z.enum(['TXT', 'CNAME', 'MX']),
  name: z
    .string()
    .meta({ description: 'The full record name to publish', example: 'fl202612k3ba._domainkey.example.com' }),
  value: z
    .string()
    .meta({ description: 'Exactly what to publish (a long TXT may be split into 255-byte strings)' }),
  status: recordStatus.meta({
    description:
      '`pending`: not found yet (or the lookup timed out); `failed`: found but wrong (see `found`)',
  }),
  required: z.boolean().meta({ description: 'Whether the domain is usable only once this record verifies' }),
  found: z
    .string()
    .optional()
    .meta({ description: 'What the last check found instead, when the record is wrong' }),
  reason: z.string().optional().meta({ description: 'The last check’s result in words' }),
  selector: z.string().optional().meta({ description: 'The DKIM selector of a `dkim` record' }),
  removableAfter: instant
    .optional()
    .meta({ description: 'A replaced DKIM key’s record: keep it until then, delete it afterwards' }),
})
export type DomainRecordResponse = z.input<typeof domainRecordResponse>

export const domainResponse = z.object({
  id,
  name: z
    .string()
    .meta({ description: 'Lowercase, internationalised names in punycode', example: 'example.com' }),
  status: z.enum(DOMAIN_STATUSES).meta({
    description:
      '`verified`: mail from it is signed and sent; `pending`: records not all verified yet; `failed`: a verified domain whose DKIM or return-path record stopped verifying (its mail is held)',
  }),
  records: z.array(domainRecordResponse),
  failureReason: z
    .string()
    .nullable()
    .meta({ description: 'Why it failed (or why checks stopped), when it did' }),
  dkim: z.object({
    phase: z.enum(['awaiting-first-record', 'active', 'rotating', 'held']),
    signingSelector: z.string().nullable().meta({ description: 'The selector mail is signed with now' }),
    pendingSelector: z
      .string()
      .nullable()
      .meta({ description: 'A new key waiting for its record to verify before it takes over' }),
  }),
  createdAt: instant,
  verifiedAt: instant.nullable(),
  lastCheckedAt: instant.nullable(),
  nextCheckAt: instant
    .nullable()
    .meta({ description: 'When Fairlane looks the records up next; null: not scheduled' }),
})
export type DomainResponse = z.input<typeof domainResponse>

export const domainsResponse = z.object({ items: z.array(domainResponse) })
