import { AppError } from '../errors/app-error'
import type { CampaignStore } from './ports'

const COPY_PREFIX = 'Copy of '
const MAX_NAME_CHARS = 200

export interface DuplicateCampaignDeps {
  store: Pick<CampaignStore, 'findCampaignContent' | 'insertCampaign'>
}

/**
 * A new draft with another campaign's name (as "Copy of …"), content, sender and audience, in any status
 * (a sent or cancelled campaign is the usual thing to copy). The schedule is not copied: a copy
 * sent at the original's time would go out unseen, so the user chooses a time for it.
 */
export async function duplicateCampaign(
  input: { tenantId: string; campaignId: string },
  deps: DuplicateCampaignDeps,
): Promise<{ id: string }> {
  const source = await deps.store.findCampaignContent(input)
  if (source === null)
    throw new AppError('not_found', `No campaign with id ${JSON.stringify(input.campaignId)}`)
  const inserted = await deps.store.insertCampaign({
    tenantId: input.tenantId,
    name: `${COPY_PREFIX}${source.name}`.slice(0, MAX_NAME_CHARS),
    subject: source.subject,
    html: source.html,
    text: source.text,
    listId: source.listId,
    segmentId: source.segmentId,
    fromAddress: source.fromAddress,
    replyTo: source.replyTo,
    // The copy tracks what the original tracked, whatever the tenant's defaults are now.
    trackOpens: source.trackOpens,
    trackClicks: source.trackClicks,
    status: 'draft',
    sendAt: null,
    sendAtLocal: null,
    timeZone: null,
  })
  // A draft needs no live segment; but its segment was deleted meanwhile, so the copy could never be sent.
  if (inserted === 'segment_gone')
    throw new AppError(
      'conflict',
      'The campaign’s segment was deleted: choose another audience in a new campaign',
    )
  return inserted
}
