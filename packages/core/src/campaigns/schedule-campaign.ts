import type { Clock } from '../accept/ports'
import { checkKeyDomain } from '../api-keys/key-scope'
import { AppError, type FieldIssue, validationFailed } from '../errors/app-error'
import { checkSenderDomain } from '../senders/check-sender-domain'
import type { SenderDomains } from '../senders/ports'
import type { CampaignDraft, CampaignSchedule } from './campaign-request'
import { oversizedContent } from './campaign-request'
import { type AudienceCounts, type CampaignStore, isEditableCampaign, type TemplateChecker } from './ports'
import { localTimeOf, resolveSendAt } from './schedule'

export interface ScheduleCampaignInput {
  tenantId: string
  /** Present when editing an existing draft or scheduled campaign. */
  campaignId?: string | undefined
  draft: CampaignDraft
  /**
   * An API key's domain restriction (`/api/v1`; absent from the pages): the From the campaign will
   * go from, its own or else the tenant's default (`defaultFrom`), must be on it (403 otherwise).
   */
  keyDomain?: { domain: string | null; defaultFrom: string | null } | undefined
}

export interface ScheduleCampaignDeps {
  store: CampaignStore
  templates: TemplateChecker
  /** A campaign's `from` must be on one of the tenant's verified domains when it is saved (422). */
  domains: SenderDomains
  clock: Clock
}

/** Saved, but worth telling the user about; the API answers them as `warnings`. */
export interface CampaignWarning {
  code: 'empty-audience'
  message: string
}

export interface ScheduledCampaign {
  id: string
  status: 'draft' | 'scheduled'
  sendAt: Date | null
  sendAtLocal: string | null
  timeZone: string | null
  audience: AudienceCounts | null
  warnings: CampaignWarning[]
}

/**
 * Saves a campaign as a draft or schedules it. Scheduling stores the instant together with the wall
 * time and zone the user chose; dispatch (turning the audience into messages) happens when it is
 * due, elsewhere. Every refusal names the field, and nothing is written unless everything holds.
 *
 * The audience is resolved at send time, so an empty one is only a warning for a later send time
 * (contacts imported meanwhile get the campaign; still empty then, it ends as sent with nobody to
 * send to). Sending now has no "meanwhile": it would end at once with nothing sent, which is never
 * what the user meant, so it is refused while the user can still fix it.
 */
export async function scheduleCampaign(
  input: ScheduleCampaignInput,
  deps: ScheduleCampaignDeps,
): Promise<ScheduledCampaign> {
  const { draft, tenantId } = input
  const oversized = oversizedContent(draft)
  if (oversized.length > 0) {
    const message = oversized.map((issue) => `${issue.path} ${issue.message}`).join('; ')
    throw new AppError('payload_too_large', message, { details: oversized })
  }
  const syntax: FieldIssue[] = []
  for (const [path, template] of [
    ['subject', draft.subject],
    ['html', draft.html],
    ['text', draft.text],
  ] as const) {
    const error = template === null ? null : deps.templates.syntaxError(template)
    if (error !== null) syntax.push({ path, message: `is not a valid template: ${error}` })
  }
  if (syntax.length > 0) throw validationFailed(syntax)

  if (draft.segmentId !== null && draft.listId !== null) {
    throw validationFailed([{ path: 'segmentId', message: 'cannot be combined with listId' }])
  }
  const when = resolveSchedule(draft.schedule, deps.clock.now())
  if (draft.listId !== null && !(await deps.store.listExists({ tenantId, listId: draft.listId }))) {
    throw new AppError('not_found', `No list with id ${JSON.stringify(draft.listId)}`, {
      details: [{ path: 'listId', message: 'is not one of your lists' }],
    })
  }
  const noSegment = () =>
    new AppError('not_found', `No segment with id ${JSON.stringify(draft.segmentId)}`, {
      details: [{ path: 'segmentId', message: 'is not one of your segments' }],
    })
  if (
    draft.segmentId !== null &&
    !(await deps.store.segmentExists({ tenantId, segmentId: draft.segmentId }))
  ) {
    throw noSegment()
  }
  await checkSender(input, deps)
  if (input.keyDomain !== undefined) {
    const { domain, defaultFrom } = input.keyDomain
    checkKeyDomain(domain, draft.sender?.from ?? defaultFrom, 'campaign')
  }
  let audience: AudienceCounts | null = null
  const warnings: CampaignWarning[] = []
  if (when.status === 'scheduled') {
    audience = await deps.store.countAudience({ tenantId, listId: draft.listId, segmentId: draft.segmentId })
    if (audience.recipients === 0) {
      const excluded = `${audience.unsubscribed} unsubscribed and ${audience.suppressed} suppressed contacts are left out`
      const source =
        draft.listId !== null
          ? 'the list has no subscribed contacts'
          : draft.segmentId !== null
            ? 'no subscribed contact matches the segment'
            : 'you have no subscribed contacts'
      const why = `${source} (${excluded})`
      if (draft.schedule.kind === 'now') {
        const path = draft.listId !== null ? 'listId' : draft.segmentId !== null ? 'segmentId' : 'audience'
        throw new AppError('unprocessable', `The audience is empty: ${why}`, {
          details: [{ path, message: 'has no recipients' }],
        })
      }
      warnings.push({
        code: 'empty-audience',
        message: `The audience is empty now: ${why}. It is resolved at send time: contacts added before then get the campaign; if it is still empty then, the campaign ends as sent with no recipients.`,
      })
    }
  }

  const fields = {
    name: draft.name,
    subject: draft.subject,
    html: draft.html,
    text: draft.text,
    listId: draft.listId,
    segmentId: draft.segmentId,
    fromAddress: draft.sender?.from ?? null,
    replyTo: draft.sender?.replyTo ?? null,
    trackOpens: draft.tracking?.opens,
    trackClicks: draft.tracking?.clicks,
    ...when,
  }
  if (input.campaignId === undefined) {
    const inserted = await deps.store.insertCampaign({ tenantId, ...fields })
    if (inserted === 'segment_gone') throw noSegment()
    return { id: inserted.id, ...when, audience, warnings }
  }
  const campaignId = input.campaignId
  const status = await deps.store.findCampaignStatus({ tenantId, campaignId })
  if (status === null) throw new AppError('not_found', `No campaign with id ${JSON.stringify(campaignId)}`)
  const updated = isEditableCampaign(status)
    ? await deps.store.updateEditableCampaign({ tenantId, campaignId, ...fields })
    : false
  if (updated === 'segment_gone') throw noSegment()
  if (!updated) throw new AppError('conflict', `This campaign is ${status} and can no longer be edited`)
  return { id: campaignId, ...when, audience, warnings }
}

/**
 * A `from` named now must be on a verified domain. Saving an edit that keeps the campaign's stored
 * `from` is not refused when its domain failed since: its mail is held until the domain verifies.
 */
async function checkSender(input: ScheduleCampaignInput, deps: ScheduleCampaignDeps): Promise<void> {
  const from = input.draft.sender?.from ?? null
  if (from === null) return
  if (input.campaignId !== undefined) {
    const stored = await deps.store.findCampaignContent({
      tenantId: input.tenantId,
      campaignId: input.campaignId,
    })
    if (stored?.fromAddress === from) return
  }
  await checkSenderDomain({ tenantId: input.tenantId, from }, deps)
}

type Resolved = Pick<ScheduledCampaign, 'status' | 'sendAt' | 'sendAtLocal' | 'timeZone'>

function resolveSchedule(schedule: CampaignSchedule, now: Date): Resolved {
  switch (schedule.kind) {
    case 'draft':
      return { status: 'draft', sendAt: null, sendAtLocal: null, timeZone: null }
    case 'now':
      return { status: 'scheduled', sendAt: now, sendAtLocal: localTimeOf(now, 'UTC'), timeZone: 'UTC' }
    case 'instant':
      if (schedule.sendAt.getTime() <= now.getTime()) {
        throw validationFailed([
          { path: 'sendAt', message: `is in the past (${schedule.sendAt.toISOString()})` },
        ])
      }
      return {
        status: 'scheduled',
        sendAt: schedule.sendAt,
        sendAtLocal: localTimeOf(schedule.sendAt, 'UTC'),
        timeZone: 'UTC',
      }
    case 'local': {
      const { local, timeZone } = schedule
      const result = resolveSendAt(schedule, now)
      switch (result.kind) {
        case 'ok':
          return { status: 'scheduled', sendAt: result.sendAt, sendAtLocal: local, timeZone }
        case 'invalid-zone':
          throw validationFailed([
            {
              path: 'sendAt.timeZone',
              message: `unknown time zone ${JSON.stringify(timeZone)}: use an IANA name such as Europe/Berlin`,
            },
          ])
        case 'invalid-local':
          throw validationFailed([{ path: 'sendAt.local', message: `${local} is not a real date and time` }])
        case 'in-the-past':
          throw validationFailed([
            {
              path: 'sendAt.local',
              message: `${local} in ${timeZone} is in the past (${result.sendAt.toISOString()})`,
            },
          ])
        case 'gap':
          throw validationFailed([
            {
              path: 'sendAt.local',
              message: `${local} does not exist in ${timeZone}: the clocks skip ${result.gapMinutes} minutes there; the first valid time after it is ${result.suggestion.local}`,
            },
          ])
        case 'overlap':
          throw validationFailed([
            {
              path: 'sendAt.fold',
              message: `${local} happens twice in ${timeZone}: send "fold": "earlier" for ${result.earlier.toISOString()} (UTC${result.earlierOffset}) or "later" for ${result.later.toISOString()} (UTC${result.laterOffset})`,
            },
          ])
      }
    }
  }
}
