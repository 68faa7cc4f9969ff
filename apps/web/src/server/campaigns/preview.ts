import { oversizedContent, PREVIEW_UNSUBSCRIBE_TOKEN } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { findPreviewContact } from '@fairlane/db/queries/audience'
import {
  type CampaignContact,
  findUnknownVariables,
  renderCampaignMessage,
  templateSyntaxError,
} from '@fairlane/mail/templates'
import type { PreviewResult } from './editor-state'

export interface PreviewInput {
  subject: string
  html: string
  text: string
  /** A contact of the tenant; an unknown or foreign id falls back to the sample contact. */
  contactId: string | null
}

const FIELD_LABELS: Record<string, string> = { subject: 'Subject', html: 'HTML body', text: 'Text part' }

const SAMPLE: CampaignContact = { email: 'jane.doe@example.com', name: 'Jane Doe', attributes: {} }

/**
 * The campaign as the chosen contact would get it, with the unknown-variable warning. The footer
 * link is deliberately not a real token (`/u/preview`, a page saying it is a test's link): a test
 * send goes to any address, and whoever gets it must not be able to unsubscribe the contact it was
 * rendered for. Content over the campaign limits is
 * refused before anything parses it: the preview runs on every keystroke, and a parse costs memory
 * and CPU in proportion to the template's size.
 */
export async function renderPreview(
  input: PreviewInput & { tenantId: string },
  deps: { db: Database; unsubscribeUrl(token: string): string },
): Promise<PreviewResult> {
  const oversized = oversizedContent(input)
  if (oversized.length > 0) {
    const errors = oversized.map((issue) => `${FIELD_LABELS[issue.path] ?? issue.path}: ${issue.message}.`)
    return { subject: '', html: '', text: '', unknown: [], errors }
  }
  const errors: string[] = []
  for (const field of ['subject', 'html', 'text'] as const) {
    const error = templateSyntaxError(input[field])
    if (error !== null) errors.push(`${FIELD_LABELS[field]}: ${error}`)
  }
  const found =
    input.contactId === null
      ? null
      : await findPreviewContact(deps.db, { tenantId: input.tenantId, contactId: input.contactId })
  const contact: CampaignContact = found ?? SAMPLE
  const unknown = [
    ...new Set(
      [input.subject, input.html, input.text].flatMap((template) => findUnknownVariables(template, contact)),
    ),
  ]
  if (errors.length > 0) return { subject: '', html: '', text: '', unknown, errors }
  const rendered = renderCampaignMessage({
    campaign: { subject: input.subject, html: input.html, text: input.text },
    contact,
    unsubscribeUrl: deps.unsubscribeUrl(PREVIEW_UNSUBSCRIBE_TOKEN),
  })
  return { subject: rendered.subject, html: rendered.html, text: rendered.text, unknown, errors }
}
