'use server'

import {
  cancelCampaign,
  duplicateCampaign,
  localTimeOf,
  resolveSendAt,
  scheduleCampaign,
} from '@fairlane/core'
import { acceptMessage } from '@fairlane/core/accept'
import { isAppError } from '@fairlane/core/errors'
import { createAcceptStore } from '@fairlane/db/queries/accept-message'
import { createCampaignStore } from '@fairlane/db/queries/campaigns'
import { createSenderDomains, findDefaultSender } from '@fairlane/db/queries/senders'
import { templateSyntaxError } from '@fairlane/mail/templates'
import { revalidatePath } from 'next/cache'
import { notFound, redirect } from 'next/navigation'
import { createMessageRenderer } from '@/server/api/v1/message-renderer'
import { authorize } from '@/server/auth/session'
import { editorValuesOf, parseEditorForm, stateFromError } from '@/server/campaigns/campaign-form'
import {
  type EditorState,
  formatUtc,
  type PreviewResult,
  type ScheduleDescription,
} from '@/server/campaigns/editor-state'
import { type PreviewInput, renderPreview } from '@/server/campaigns/preview'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { unsubscribeUrl } from '@/server/unsubscribe/deps'

const now = () => new Date()

/** Creates (no `campaignId`) or edits a campaign: saved as a draft, or scheduled now or at a local time. */
export async function saveCampaignAction(_state: EditorState, form: FormData): Promise<EditorState> {
  const { session } = await authorize('campaigns.manage')
  const rawId = String(form.get('campaignId') ?? '')
  if (rawId !== '' && !isUuid(rawId)) notFound()
  const values = editorValuesOf(form)
  const parsed = parseEditorForm(values, now())
  if (!parsed.ok) return parsed.state
  if (values.schedule !== 'draft') {
    // Scheduling or sending also needs the tenant in good standing: the refusal says why, in the form.
    const { refusal } = await authorize('campaigns.send')
    if (refusal) return { values, errors: {}, formError: refusal.message }
  }
  let id: string
  try {
    const saved = await scheduleCampaign(
      { tenantId: session.tenantId, campaignId: rawId === '' ? undefined : rawId, draft: parsed.draft },
      {
        store: createCampaignStore(container().database.db),
        templates: { syntaxError: templateSyntaxError },
        domains: createSenderDomains(container().database.db),
        clock: { now },
      },
    )
    id = saved.id
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found' && rawId !== '' && !error.details) notFound()
    if (isAppError(error)) return stateFromError(values, error)
    throw error
  }
  revalidatePath('/campaigns')
  redirect(`/campaigns/${id}`)
}

/** Cancels a campaign at any point before it is sent; the notice says how many were held back and how many went. */
export async function cancelCampaignAction(form: FormData): Promise<void> {
  const { session } = await authorize('campaigns.manage')
  const campaignId = String(form.get('campaignId') ?? '')
  if (!isUuid(campaignId)) notFound()
  let result: { sent: number; cancelled: number }
  try {
    result = await cancelCampaign(
      { tenantId: session.tenantId, campaignId },
      { store: createCampaignStore(container().database.db), clock: { now } },
    )
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    if (isAppError(error) && error.code === 'conflict')
      redirect(`/campaigns/${campaignId}?notice=not-cancellable`)
    throw error
  }
  revalidatePath('/campaigns')
  redirect(`/campaigns/${campaignId}?notice=cancelled&held=${result.cancelled}&went=${result.sent}`)
}

/** A new draft copy of any campaign (content and audience, not the schedule), opened in the editor. */
export async function duplicateCampaignAction(form: FormData): Promise<void> {
  const { session } = await authorize('campaigns.manage')
  const campaignId = String(form.get('campaignId') ?? '')
  if (!isUuid(campaignId)) notFound()
  let copy: { id: string }
  try {
    copy = await duplicateCampaign(
      { tenantId: session.tenantId, campaignId },
      { store: createCampaignStore(container().database.db) },
    )
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    throw error
  }
  revalidatePath('/campaigns')
  redirect(`/campaigns/${copy.id}/edit`)
}

function senderFields(input: { from?: unknown; replyTo?: unknown }): { from?: string; replyTo?: string } {
  const from = String(input.from ?? '').trim()
  const replyTo = String(input.replyTo ?? '').trim()
  return { ...(from ? { from } : {}), ...(replyTo ? { replyTo } : {}) }
}

/** The live preview: the campaign rendered for one of the tenant's contacts. */
export async function previewCampaignAction(input: PreviewInput): Promise<PreviewResult> {
  const { session } = await authorize('campaigns.manage')
  return renderPreview(
    {
      tenantId: session.tenantId,
      subject: String(input.subject ?? ''),
      html: String(input.html ?? ''),
      text: String(input.text ?? ''),
      contactId: typeof input.contactId === 'string' && isUuid(input.contactId) ? input.contactId : null,
    },
    { db: container().database.db, unsubscribeUrl },
  )
}

/** What the chosen wall time means in UTC, shown under the field while the user types. */
export async function describeScheduleAction(local: string, timeZone: string): Promise<ScheduleDescription> {
  await authorize('campaigns.manage')
  const result = resolveSendAt({ local: String(local), timeZone: String(timeZone) }, now())
  switch (result.kind) {
    case 'ok':
      return { kind: 'ok', utc: formatUtc(result.sendAt), offset: result.utcOffset }
    case 'gap':
      return {
        kind: 'gap',
        suggestion: result.suggestion.local,
        suggestionUtc: formatUtc(result.suggestion.sendAt),
      }
    case 'overlap':
      return {
        kind: 'overlap',
        earlierUtc: formatUtc(result.earlier),
        laterUtc: formatUtc(result.later),
        earlierOffset: result.earlierOffset,
        laterOffset: result.laterOffset,
      }
    case 'in-the-past':
      return { kind: 'error', message: `That is in the past (${formatUtc(result.sendAt)}).` }
    case 'invalid-zone':
      return { kind: 'error', message: 'Choose a time zone from the list.' }
    case 'invalid-local':
      return { kind: 'error', message: 'Choose a date and time.' }
  }
}

export type TestSendResult = { ok: true; message: string } | { ok: false; message: string }

/**
 * "Send a test to": the campaign rendered for the preview contact, subject prefixed "[Test] ",
 * through the default lane by the same accept use case as `POST /api/v1/messages`.
 */
export async function sendTestAction(
  input: PreviewInput & { to: string; from?: string; replyTo?: string },
): Promise<TestSendResult> {
  const { session, refusal } = await authorize('campaigns.send')
  if (refusal) return { ok: false, message: refusal.message }
  const preview = await previewCampaignAction(input)
  if (preview.errors.length > 0) return { ok: false, message: preview.errors.join(' ') }
  const { api } = container()
  try {
    await acceptMessage(
      {
        tenantId: session.tenantId,
        body: {
          to: String(input.to ?? '').trim(),
          subject: `[Test] ${preview.subject}`,
          html: preview.html,
          text: preview.text,
          // The editor's From / Reply-To as typed; empty ones fall back like the campaign's will.
          ...senderFields(input),
        },
        idempotencyKey: null,
        defaultSender: await findDefaultSender(api.db, { tenantId: session.tenantId }),
        source: 'app',
      },
      {
        store: createAcceptStore(api.db),
        renderer: api.renderer ?? createMessageRenderer(api.db),
        recipientLimiter: api.limiters.recipient,
        senderDomains: createSenderDomains(api.db),
        clock: api.clock,
        // A test send is mail like any other: the tenant's plan and quotas hold it too.
        ...(api.planAdmission ? { planAdmission: api.planAdmission } : {}),
      },
    )
  } catch (error) {
    if (!isAppError(error)) throw error
    const field = error.details?.[0]
    const label = { to: 'The address', from: 'From', replyTo: 'Reply-To' }[field?.path ?? '']
    const message = field && label ? `${label} ${field.message}.` : error.message
    return { ok: false, message }
  }
  return {
    ok: true,
    message: `Test sent to ${String(input.to).trim()} at ${localTimeOf(now(), 'UTC').replace('T', ' ')} UTC.`,
  }
}
