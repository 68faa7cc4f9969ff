import type { CampaignStatus } from '../domain/statuses'

/** What the campaign use cases need from PostgreSQL (`@fairlane/db/queries/campaigns`). */
export interface AudienceCounts {
  /** Subscribed contacts (of the list or segment, or all) whose address is not suppressed. */
  recipients: number
  unsubscribed: number
  suppressed: number
}

export interface CampaignFields {
  name: string
  subject: string
  html: string
  text: string | null
  listId: string | null
  segmentId: string | null
  /** The From header (on a verified domain when saved); null: the tenant's default at dispatch time. */
  fromAddress: string | null
  replyTo: string | null
  status: 'draft' | 'scheduled'
  sendAt: Date | null
  sendAtLocal: string | null
  timeZone: string | null
  /**
   * Open and click tracking; a switch left undefined takes the tenant's default when the campaign is
   * created and stays as it was when it is edited.
   */
  trackOpens?: boolean | undefined
  trackClicks?: boolean | undefined
}

export interface CampaignStore {
  listExists(query: { tenantId: string; listId: string }): Promise<boolean>
  /** Whether the segment exists (and is not deleted) for this tenant. */
  segmentExists(query: { tenantId: string; segmentId: string }): Promise<boolean>
  countAudience(query: {
    tenantId: string
    listId: string | null
    segmentId: string | null
  }): Promise<AudienceCounts>
  /** `segment_gone`: the segment was deleted between the check and the write (the write holds its row). */
  insertCampaign(input: CampaignFields & { tenantId: string }): Promise<{ id: string } | 'segment_gone'>
  /** Only while the campaign is a draft or scheduled; false when it is not (or not this tenant's). */
  updateEditableCampaign(
    input: CampaignFields & { tenantId: string; campaignId: string },
  ): Promise<boolean | 'segment_gone'>
  findCampaignStatus(query: { tenantId: string; campaignId: string }): Promise<CampaignStatus | null>
  /** What a copy of the campaign takes; null when it is not this tenant's. */
  findCampaignContent(query: {
    tenantId: string
    campaignId: string
  }): Promise<Pick<
    CampaignFields,
    | 'name'
    | 'subject'
    | 'html'
    | 'text'
    | 'listId'
    | 'segmentId'
    | 'fromAddress'
    | 'replyTo'
    | 'trackOpens'
    | 'trackClicks'
  > | null>
  /**
   * In one transaction: the campaign becomes `cancelled`, only while its status is cancellable (null,
   * changing nothing, when it moved on meanwhile), then its messages still `pending` or `queued`
   * become `cancelled`. Counts are as of the commit.
   */
  cancelCampaign(input: {
    tenantId: string
    campaignId: string
    now: Date
  }): Promise<CampaignCancellation | null>
  /** The campaign's messages in status `sent`. */
  countSentMessages(query: { tenantId: string; campaignId: string }): Promise<number>
}

export interface CampaignCancellation {
  /** Messages that had already gone. */
  sent: number
  /** Messages moved to `cancelled` by this cancellation. */
  cancelled: number
}

/** Checks mustache syntax; lives in `@fairlane/mail` (core does not depend on the renderer). */
export interface TemplateChecker {
  syntaxError(template: string): string | null
}

/** Campaigns a user may still change; once dispatch starts, the content is what recipients get. */
export const EDITABLE_CAMPAIGN_STATUSES = ['draft', 'scheduled'] as const satisfies readonly CampaignStatus[]

export function isEditableCampaign(status: CampaignStatus): boolean {
  return (EDITABLE_CAMPAIGN_STATUSES as readonly string[]).includes(status)
}

/**
 * Campaigns a user may still cancel: until every message is terminal (`sent`), some mail can still
 * be held back. Messages already `sending` finish; the rest become `cancelled`.
 */
export const CANCELLABLE_CAMPAIGN_STATUSES = [
  'draft',
  'scheduled',
  'dispatching',
  'sending',
  'paused',
] as const satisfies readonly CampaignStatus[]

export function isCancellableCampaign(status: CampaignStatus): boolean {
  return (CANCELLABLE_CAMPAIGN_STATUSES as readonly string[]).includes(status)
}

/** A campaign the dispatcher works on. */
export interface DispatchTarget {
  id: string
  tenantId: string
}

/** A scheduled campaign due in the next moment, with how long until it is due (by the database's clock). */
export interface CampaignDueSoon extends DispatchTarget {
  dueInMs: number
  sendAtMs: number
}

/** `skipped`: another dispatcher holds the campaign right now, or it is no longer scheduled/dispatching (sent, cancelled). */
export type DispatchBatchResult =
  | { kind: 'skipped' }
  | {
      kind: 'batch'
      inserted: number
      excluded: number
      done: boolean
      /** The audience was empty at send time: the campaign ended `sent` with no messages. */
      endedEmpty: boolean
    }

export interface CompletionSlice {
  /** Campaigns that became `sent`. */
  completed: DispatchTarget[]
  /** Where the next slice starts; null: from the first campaign again. */
  next: string | null
  /** Another pass was checking at that moment: this one checked nothing. */
  busy: boolean
}

/** The campaigns and their audiences in PostgreSQL (`@fairlane/db/queries/dispatch`). */
export interface DispatchStore {
  /**
   * The next `limit` campaigns `sending` after `after` (by id) are checked; those whose every message
   * is terminal become `sent`, committed. Bounded, so a pass costs the same with ten thousand
   * campaigns sending as with ten; the slices go round all of them.
   */
  completeFinished(input: { after: string | null; limit: number }): Promise<CompletionSlice>
  /** Scheduled campaigns whose time has come, and dispatches left unfinished (a dispatcher died). */
  findDispatchable(input: { limit: number }): Promise<DispatchTarget[]>
  /**
   * The next `batchSize` contacts after the campaign's cursor become messages and the cursor moves,
   * in one committed transaction; a batch run twice adds nothing twice. After the last page the
   * campaign is `sending` (or `sent` when its audience came to no messages).
   */
  dispatchBatch(input: { campaignId: string; batchSize: number }): Promise<DispatchBatchResult>
  findDueSoon(input: { withinMs: number; limit: number }): Promise<CampaignDueSoon[]>
}

export interface DispatchLogger {
  info(fields: Record<string, unknown>, message: string): void
}
