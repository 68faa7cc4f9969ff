import {
  type CampaignDraft,
  type CampaignSchedule,
  campaignRequestSchema,
  resolveSendAt,
  savedSenderFields,
} from '@fairlane/core'
import { type AppError, fieldIssues } from '@fairlane/core/errors'
import { z } from 'zod'
import type { EditorState, EditorValues } from './editor-state'
import { formatUtc } from './editor-state'

const contentSchema = campaignRequestSchema.pick({ name: true, subject: true, html: true })
/** An empty From or Reply-To field means the tenant's default. */
const senderSchema = z.object(savedSenderFields)

export function editorValuesOf(form: FormData): EditorValues {
  const text = (name: string) => String(form.get(name) ?? '')
  const schedule = text('schedule')
  const fold = text('fold')
  // The gap notice's "use this time" button carries the suggested wall time.
  const suggested = text('suggestedLocal')
  return {
    name: text('name'),
    from: text('from'),
    replyTo: text('replyTo'),
    subject: text('subject'),
    html: text('html'),
    text: text('text'),
    audience: text('audience') || 'all',
    schedule: schedule === 'draft' || schedule === 'now' ? schedule : 'later',
    local: suggested || text('local'),
    timeZone: text('timeZone'),
    fold: fold === 'earlier' || fold === 'later' ? fold : '',
    // Checkboxes: in the form data only when ticked.
    trackOpens: form.get('trackOpens') === 'on',
    trackClicks: form.get('trackClicks') === 'on',
  }
}

export type FormOutcome = { ok: true; draft: CampaignDraft } | { ok: false; state: EditorState }

/**
 * The editor's form as a draft for `scheduleCampaign`, or the state to show again: field errors,
 * or the DST question (a skipped wall time gets a suggestion, a repeated one a choice) — asked,
 * never guessed.
 */
export function parseEditorForm(values: EditorValues, now: Date): FormOutcome {
  const errors: EditorState['errors'] = {}
  const content = contentSchema.safeParse({ name: values.name, subject: values.subject, html: values.html })
  if (!content.success) {
    for (const issue of fieldIssues(content.error)) errors[issue.path as keyof EditorValues] ??= issue.message
  }
  const sender = senderSchema.safeParse({ from: values.from, replyTo: values.replyTo })
  if (!sender.success) {
    for (const issue of fieldIssues(sender.error)) errors[issue.path as keyof EditorValues] ??= issue.message
  }
  const { listId, segmentId } = audienceOf(values.audience)
  let schedule: CampaignSchedule = { kind: values.schedule === 'now' ? 'now' : 'draft' }
  if (values.schedule === 'later') {
    const resolved = resolveSendAt(
      { local: values.local, timeZone: values.timeZone, fold: values.fold || undefined },
      now,
    )
    switch (resolved.kind) {
      case 'invalid-local':
        errors.local = 'choose a date and time'
        break
      case 'invalid-zone':
        errors.timeZone = 'choose a time zone from the list'
        break
      case 'in-the-past':
        errors.local = `is in the past (${formatUtc(resolved.sendAt)})`
        break
      case 'gap':
        return {
          ok: false,
          state: {
            values,
            errors: { ...errors, local: `does not exist in ${values.timeZone}: the clocks skip it` },
            gap: {
              local: values.local,
              suggestion: resolved.suggestion.local,
              suggestionUtc: formatUtc(resolved.suggestion.sendAt),
            },
          },
        }
      case 'overlap':
        return {
          ok: false,
          state: {
            values,
            errors: { ...errors, fold: 'this time happens twice: choose which one' },
            overlap: {
              earlierUtc: formatUtc(resolved.earlier),
              laterUtc: formatUtc(resolved.later),
              earlierOffset: resolved.earlierOffset,
              laterOffset: resolved.laterOffset,
            },
          },
        }
      case 'ok':
        schedule = {
          kind: 'local',
          local: values.local,
          timeZone: values.timeZone,
          fold: values.fold || undefined,
        }
    }
  }
  if (Object.keys(errors).length > 0 || !content.success || !sender.success) {
    return { ok: false, state: { values, errors } }
  }
  return {
    ok: true,
    draft: {
      name: content.data.name,
      subject: content.data.subject,
      html: content.data.html,
      text: values.text.trim() === '' ? null : values.text,
      listId,
      segmentId,
      sender: { from: sender.data.from ?? null, replyTo: sender.data.replyTo ?? null },
      schedule,
      tracking: { opens: values.trackOpens, clicks: values.trackClicks },
    },
  }
}

/** The audience picker's value: `all`, a list id, or `segment:<id>`. */
export function audienceOf(value: string): { listId: string | null; segmentId: string | null } {
  if (value === 'all') return { listId: null, segmentId: null }
  if (value.startsWith(SEGMENT_PREFIX)) return { listId: null, segmentId: value.slice(SEGMENT_PREFIX.length) }
  return { listId: value, segmentId: null }
}

const SEGMENT_PREFIX = 'segment:'

/** The picker's value for a campaign's stored audience. */
export function audienceValue(campaign: { listId: string | null; segmentId: string | null }): string {
  if (campaign.segmentId !== null) return `${SEGMENT_PREFIX}${campaign.segmentId}`
  return campaign.listId ?? 'all'
}

const FIELD_OF: Record<string, keyof EditorValues> = {
  name: 'name',
  from: 'from',
  replyTo: 'replyTo',
  subject: 'subject',
  html: 'html',
  text: 'text',
  listId: 'audience',
  segmentId: 'audience',
  audience: 'audience',
  'sendAt.local': 'local',
  'sendAt.timeZone': 'timeZone',
  'sendAt.fold': 'fold',
  sendAt: 'local',
}

/** An AppError from the use case, shown next to the fields it names. */
export function stateFromError(values: EditorValues, error: AppError): EditorState {
  const errors: EditorState['errors'] = {}
  for (const detail of error.details ?? []) {
    const field = FIELD_OF[detail.path]
    if (field) errors[field] ??= detail.message
  }
  const named = Object.keys(errors).length > 0
  return {
    values,
    errors,
    formError: named && error.code === 'validation_failed' ? undefined : error.message,
  }
}
