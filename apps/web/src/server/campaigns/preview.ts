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

const SAMPLE: CampaignContact = { email: 'jane.doe@example.com', name: 'Jane Doe', attributes: {} }

/**
 * The campaign as the chosen contact would get it, with the unknown-variable warning. The footer
 * link is deliberately not a real token: a test send goes to any address, and whoever gets it must
 * not be able to unsubscribe the contact it was rendered for.
 */
export async function renderPreview(
  input: PreviewInput & { tenantId: string },
  deps: { db: Database; unsubscribeUrl(token: string): string },
): Promise<PreviewResult> {
  const errors: string[] = []
  for (const [field, template] of [
    ['Subject', input.subject],
    ['HTML body', input.html],
    ['Text part', input.text],
  ] as const) {
    const error = templateSyntaxError(template)
    if (error !== null) errors.push(`${field}: ${error}`)
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
    unsubscribeUrl: deps.unsubscribeUrl('preview'),
  })
  return { subject: rendered.subject, html: rendered.html, text: rendered.text, unknown, errors }
}
