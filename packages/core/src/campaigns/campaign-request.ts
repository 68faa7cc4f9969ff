import { z } from 'zod'
import { isHeaderSafe } from '../accept/header-safe'
import { type FieldIssue, validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import type { SenderChoice } from '../senders/ports'
import { campaignSenderFields } from '../senders/sender-settings'
import { LOCAL_TIME_PATTERN } from './schedule'

/** 512 KB of HTML is already far beyond what mail clients render well (Gmail clips at 102 KB). */
export const MAX_CAMPAIGN_HTML_BYTES = 512 * 1024
/** The text part gets the same room as the HTML it usually mirrors. */
export const MAX_CAMPAIGN_TEXT_BYTES = MAX_CAMPAIGN_HTML_BYTES
export const MAX_CAMPAIGN_SUBJECT_CHARS = 500

/**
 * Content over the limits, per field, before anything parses it: every template parsed costs memory
 * and CPU in proportion to its size, so scheduling and the editor's preview measure first.
 */
export function oversizedContent(content: {
  subject: string
  html: string
  text: string | null
}): FieldIssue[] {
  const issues: FieldIssue[] = []
  if (content.subject.length > MAX_CAMPAIGN_SUBJECT_CHARS) {
    issues.push({ path: 'subject', message: `must be at most ${MAX_CAMPAIGN_SUBJECT_CHARS} characters` })
  }
  for (const [path, value, max] of [
    ['html', content.html, MAX_CAMPAIGN_HTML_BYTES],
    ['text', content.text, MAX_CAMPAIGN_TEXT_BYTES],
  ] as const) {
    const bytes = value === null ? 0 : Buffer.byteLength(value, 'utf8')
    if (bytes > max) {
      issues.push({ path, message: `must be at most ${max / 1024} KB (it is ${Math.ceil(bytes / 1024)} KB)` })
    }
  }
  return issues
}

/** When to send: an instant, a wall time in a zone (with a fold for a repeated hour), now, or not yet. */
export type CampaignSchedule =
  | { kind: 'draft' }
  | { kind: 'now' }
  | { kind: 'instant'; sendAt: Date }
  | { kind: 'local'; local: string; timeZone: string; fold?: 'earlier' | 'later' | undefined }

export interface CampaignDraft {
  name: string
  subject: string
  html: string
  text: string | null
  listId: string | null
  /** A saved segment as the audience; at most one of `listId` and `segmentId` is set. */
  segmentId: string | null
  /** From / Reply-To (normalised header values); null or absent: the tenant's default at dispatch time. */
  sender?: SenderChoice | undefined
  schedule: CampaignSchedule
  /** Open and click tracking; a switch left out takes the tenant's setting. */
  tracking?: { opens?: boolean | undefined; clicks?: boolean | undefined } | undefined
}

const instant = z.iso
  .datetime({ offset: true, message: 'expected an ISO 8601 instant with a zone, e.g. 2026-12-24T08:00:00Z' })
  .transform((value) => new Date(value))

const localSendAt = z.strictObject({
  local: z.string().regex(LOCAL_TIME_PATTERN, 'expected a local date and time as YYYY-MM-DDTHH:mm'),
  timeZone: z.string().min(1, 'expected an IANA time zone such as Europe/Berlin'),
  fold: z.enum(['earlier', 'later']).optional(),
})

export const campaignRequestSchema = z.strictObject({
  name: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters'),
  subject: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(MAX_CAMPAIGN_SUBJECT_CHARS, `must be at most ${MAX_CAMPAIGN_SUBJECT_CHARS} characters`)
    .refine(isHeaderSafe, 'must be a single line'),
  html: z.string().min(1, 'is required'),
  text: z.string().optional(),
  listId: z
    .uuid('expected the id of one of your lists')
    .optional()
    .describe('One of your lists; without it (and without segmentId), all subscribed contacts'),
  segmentId: z
    .uuid('expected the id of one of your segments')
    .optional()
    .describe('One of your segments (resolved at send time); not together with listId'),
  sendAt: z
    .union([instant, localSendAt], {
      error: 'expected an ISO instant or { "local": "YYYY-MM-DDTHH:mm", "timeZone": "Area/City" }',
    })
    .describe('An ISO instant with a zone, or a wall time in an IANA zone; in the future'),
  ...campaignSenderFields,
  tracking: z
    .strictObject({
      opens: z.boolean('must be true or false').optional(),
      clicks: z.boolean('must be true or false').optional(),
    })
    .optional()
    .describe('Track opens and clicks; a switch left out takes the tenant’s setting'),
})

/** The `POST /api/v1/campaigns` body as a draft to schedule; throws a 400 naming each bad field. */
export function parseCampaignRequest(body: unknown): CampaignDraft {
  const parsed = campaignRequestSchema.safeParse(body)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  const { sendAt, from, replyTo, tracking, ...rest } = parsed.data
  if (rest.listId !== undefined && rest.segmentId !== undefined) {
    throw validationFailed([
      {
        path: 'segmentId',
        message: 'cannot be combined with listId: the audience is one list or one segment',
      },
    ])
  }
  return {
    name: rest.name,
    subject: rest.subject,
    html: rest.html,
    text: rest.text === undefined || rest.text.trim() === '' ? null : rest.text,
    listId: rest.listId ?? null,
    segmentId: rest.segmentId ?? null,
    sender: { from: from ?? null, replyTo: replyTo ?? null },
    schedule: sendAt instanceof Date ? { kind: 'instant', sendAt } : { kind: 'local', ...sendAt },
    tracking,
  }
}
