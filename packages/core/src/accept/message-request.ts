import { z } from 'zod'
import { emailAddress } from '../domain/email-address'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import type { SenderChoice } from '../senders/ports'
import { senderFields } from '../senders/sender-settings'
import {
  type AttachmentRules,
  attachmentsField,
  checkAttachments,
  DEFAULT_ATTACHMENT_RULES,
  type NewAttachment,
  toNewAttachments,
} from './attachments'
import { HEADER_UNSAFE_MESSAGE, isHeaderSafe } from './header-safe'
import { sendAtField } from './send-at'

/**
 * The body of `POST /api/v1/messages`: a template with variables, or custom content. Unknown fields
 * are refused rather than ignored, so a client that sends `cc` or `bcc` learns at once that they do
 * nothing instead of wondering why the mail looks wrong.
 */
export type MessageContent =
  | { kind: 'template'; template: string; variables: Record<string, unknown> }
  | { kind: 'custom'; subject: string; html?: string; text?: string }

export interface MessageRequest {
  to: string
  content: MessageContent
  /** `from` / `replyTo` as given (normalised header values); absent ones fall back (see resolveSender). */
  sender: Partial<SenderChoice>
  /** Open and click tracking: off unless asked for (and never when the tenant turned tracking off). */
  tracking: { opens: boolean; clicks: boolean }
  /** Decoded and checked (`checkAttachments`); absent when the request had none. */
  attachments?: NewAttachment[]
  /** `sendAt` as given (an ISO instant with an offset); its range is checked at accept (`scheduledUntil`). */
  sendAt?: string | undefined
}

/** `"tracking": { "opens", "clicks" }` of API mail; a switch left out is off. */
export const messageTrackingField = {
  tracking: z
    .strictObject({
      opens: z.boolean('must be true or false').optional(),
      clicks: z.boolean('must be true or false').optional(),
    })
    .optional()
    .describe('Track opens (a pixel) and clicks (links rewritten to signed redirects); both off by default'),
}

function trackingOf(value: { opens?: boolean | undefined; clicks?: boolean | undefined } | undefined) {
  return { opens: value?.opens === true, clicks: value?.clicks === true }
}

/** RFC 5321 caps a forward path at 256 octets including the angle brackets. */
const MAX_ADDRESS_LENGTH = 254
/** RFC 5322's line limit; nodemailer folds and encodes long subjects below it. */
const MAX_SUBJECT_LENGTH = 998
const TEMPLATE_SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/

const required = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`),
})

const headerLine = (what: string, max: number) =>
  z
    .string(required(what))
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine(isHeaderSafe, HEADER_UNSAFE_MESSAGE)

const recipient = headerLine('an email address', MAX_ADDRESS_LENGTH).pipe(emailAddress())

/** A message from a template: `otp`, `password-reset`, `verify-email` or one of the tenant's template slugs. */
export const templateMessageRequestSchema = z.strictObject({
  to: recipient.describe('The recipient’s address'),
  template: z
    .string(required('a template name'))
    .regex(TEMPLATE_SLUG, 'must be otp, password-reset, verify-email or one of your template slugs')
    .describe('`otp`, `password-reset`, `verify-email` or one of your template slugs'),
  variables: z
    .record(z.string(), z.unknown(), required('an object'))
    .default({})
    .describe('The template’s variables: OtpVariables, PasswordResetVariables, or those your template uses'),
  ...senderFields,
  ...messageTrackingField,
  ...attachmentsField,
  ...sendAtField,
})

const body = (what: string) => z.string(`must be ${what}`).min(1, 'must not be empty').optional()

/** A message with its own subject and content. */
export const customMessageRequestSchema = z
  .strictObject({
    to: recipient.describe('The recipient’s address'),
    subject: headerLine('a string', MAX_SUBJECT_LENGTH),
    html: body('an HTML string'),
    text: body('a string'),
    ...senderFields,
    ...messageTrackingField,
    ...attachmentsField,
    ...sendAtField,
  })
  .refine((value) => value.html !== undefined || value.text !== undefined, {
    path: ['html'],
    message: 'give html, text or both',
  })

/**
 * Validates a parsed JSON body; throws `validation_failed` naming every wrong field, and for
 * attachments `unprocessable` (a refused type) or `payload_too_large` (over `rules.maxMessageBytes`).
 */
export function parseMessageRequest(
  input: unknown,
  rules: AttachmentRules = DEFAULT_ATTACHMENT_RULES,
): MessageRequest {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw validationFailed([{ path: '', message: 'the body must be a JSON object' }])
  }
  if ('template' in input) {
    const result = templateMessageRequestSchema.safeParse(input)
    if (!result.success) throw validationFailed(fieldIssues(result.error))
    const { to, template, variables, from, replyTo, tracking, sendAt } = result.data
    return {
      to,
      content: { kind: 'template', template, variables },
      sender: senderOf(from, replyTo),
      tracking: trackingOf(tracking),
      // The template's rendered body is counted in `size_bytes`; templates are small (their own cap).
      ...attachmentsOf(result.data.attachments, 0, rules),
      ...(sendAt === undefined ? {} : { sendAt }),
    }
  }
  const result = customMessageRequestSchema.safeParse(input)
  if (!result.success) {
    const issues = fieldIssues(result.error)
    // Without `template`, a body with `variables` is most likely a template call missing its name.
    const hint = 'variables' in input ? [{ path: 'template', message: 'is required with variables' }] : []
    throw validationFailed([...hint, ...issues.filter((issue) => issue.path !== 'variables')])
  }
  const { to, subject, html, text, from, replyTo, tracking, sendAt } = result.data
  return {
    to,
    content: { kind: 'custom', subject, html, text },
    sender: senderOf(from, replyTo),
    tracking: trackingOf(tracking),
    ...attachmentsOf(result.data.attachments, utf8Bytes(subject, html, text), rules),
    ...(sendAt === undefined ? {} : { sendAt }),
  }
}

function attachmentsOf(
  parsed: Parameters<typeof toNewAttachments>[0],
  bodyBytes: number,
  rules: AttachmentRules,
): { attachments?: NewAttachment[] } {
  const attachments = toNewAttachments(parsed)
  if (attachments.length === 0) return {}
  checkAttachments(attachments, bodyBytes, rules)
  return { attachments }
}

/** The UTF-8 size of the message's own text: what counts with its attachments toward MAX_MESSAGE_BYTES. */
export function utf8Bytes(...parts: (string | null | undefined)[]): number {
  let total = 0
  for (const part of parts) if (part) total += Buffer.byteLength(part, 'utf8')
  return total
}

function senderOf(from: string | undefined, replyTo: string | undefined): Partial<SenderChoice> {
  return { ...(from === undefined ? {} : { from }), ...(replyTo === undefined ? {} : { replyTo }) }
}
