import { z } from 'zod'
import { isHeaderSafe } from '../accept/header-safe'
import { BUILT_IN_TEMPLATES } from '../accept/template-lanes'
import { MAX_CAMPAIGN_SUBJECT_CHARS } from '../campaigns/campaign-request'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import type { SenderChoice } from '../senders/ports'
import { savedSenderFields } from '../senders/sender-settings'

/**
 * A template's slug is how `POST /api/v1/messages` names it, so it is kept to what reads the same in
 * a URL, a JSON body and a log line: lowercase letters, digits and inner hyphens.
 */
export const TEMPLATE_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/
export const MAX_TEMPLATE_NAME_CHARS = 200

/** The content a template version holds; at least one of `html` and `text` is set. */
export interface TemplateContent {
  subject: string
  html: string | null
  text: string | null
}

export interface NewTemplateRequest extends TemplateContent {
  slug: string
  name: string
  /** The From / Reply-To of mail sent with it, unless the request names its own; null: the default's. */
  sender: SenderChoice
}

/**
 * A change: only what is given changes; `html: null` or `text: null` removes that part, and
 * `from: null` / `replyTo: null` goes back to the tenant's default.
 */
export interface TemplateChange {
  name?: string | undefined
  subject?: string | undefined
  html?: string | null | undefined
  text?: string | null | undefined
  from?: string | null | undefined
  replyTo?: string | null | undefined
}

const slug = z
  .string({ error: 'is required' })
  .min(1, 'is required')
  .max(64, 'must be at most 64 characters')
  .regex(TEMPLATE_SLUG_PATTERN, 'use lowercase letters, digits and hyphens (not at the start or end)')
  .refine(
    (value) => !(BUILT_IN_TEMPLATES as readonly string[]).includes(value),
    `is a built-in template name (${BUILT_IN_TEMPLATES.join(', ')}): choose another`,
  )

const name = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'is required')
  .max(MAX_TEMPLATE_NAME_CHARS, `must be at most ${MAX_TEMPLATE_NAME_CHARS} characters`)

// The length cap is checked here too so a 5,000-character subject is named before the size check.
const subject = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'is required')
  .max(MAX_CAMPAIGN_SUBJECT_CHARS, `must be at most ${MAX_CAMPAIGN_SUBJECT_CHARS} characters`)
  .refine(isHeaderSafe, 'must be a single line')

/** Empty or blank means "no such part", as in the campaign editor. */
const part = z
  .string({ error: 'must be a string or null' })
  .nullable()
  .transform((value) => (value === null || value.trim() === '' ? null : value))

export const newTemplateSchema = z.strictObject({
  slug,
  /** Defaults to the slug: a script creating templates need not invent a second name. */
  name: name.optional(),
  subject,
  html: part.optional(),
  text: part.optional(),
  ...savedSenderFields,
})

export const templateChangeSchema = z.strictObject({
  name: name.optional(),
  subject: subject.optional(),
  html: part.optional(),
  text: part.optional(),
  ...savedSenderFields,
})

const NEEDS_CONTENT = { path: 'html', message: 'give html, text or both' }

/** `POST /api/v1/templates` (and the page's create form); throws a 400 naming each bad field. */
export function parseNewTemplate(body: unknown): NewTemplateRequest {
  const parsed = newTemplateSchema.safeParse(body)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  const { html = null, text = null } = parsed.data
  if (html === null && text === null) throw validationFailed([NEEDS_CONTENT])
  return {
    slug: parsed.data.slug,
    name: parsed.data.name ?? parsed.data.slug,
    subject: parsed.data.subject,
    html,
    text,
    sender: { from: parsed.data.from ?? null, replyTo: parsed.data.replyTo ?? null },
  }
}

/**
 * `PATCH /api/v1/templates/:slug`: any of name, subject, html, text, from, replyTo. The slug is fixed once created
 * (API callers send by it; renaming would break them silently), so it is refused with that reason.
 */
export function parseTemplateChange(body: unknown): TemplateChange {
  if (body !== null && typeof body === 'object' && 'slug' in body) {
    throw validationFailed([{ path: 'slug', message: 'cannot be changed: create a new template instead' }])
  }
  const parsed = templateChangeSchema.safeParse(body)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return parsed.data
}

/**
 * `PUT /api/v1/templates/:slug`: the whole template again, as for create but with the slug optional
 * (when given it must be the template's own: the use case checks). Parts left out are removed.
 */
export function parseTemplateReplacement(body: unknown): { slug: string | null; change: TemplateChange } {
  const parsed = newTemplateSchema.extend({ slug: z.string().optional() }).safeParse(body)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  const { html = null, text = null } = parsed.data
  if (html === null && text === null) throw validationFailed([NEEDS_CONTENT])
  return {
    slug: parsed.data.slug ?? null,
    change: {
      name: parsed.data.name,
      subject: parsed.data.subject,
      html,
      text,
      from: parsed.data.from ?? null,
      replyTo: parsed.data.replyTo ?? null,
    },
  }
}
