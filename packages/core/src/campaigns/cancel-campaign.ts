import type { Clock } from '../accept/ports'
import { AppError } from '../errors/app-error'
import { type CampaignStore, isEditableCampaign } from './ports'

export interface CancelCampaignDeps {
  store: Pick<CampaignStore, 'findCampaignStatus' | 'cancelCampaign'>
  clock: Clock
}

/**
 * Cancels a draft or scheduled campaign. Cancelling twice is fine (the second is a no-op); a campaign
 * whose dispatch has begun is refused, because some of its mail may already be out.
 */
export async function cancelCampaign(
  input: { tenantId: string; campaignId: string },
  deps: CancelCampaignDeps,
): Promise<{ status: 'cancelled' }> {
  const status = await deps.store.findCampaignStatus(input)
  if (status === null)
    throw new AppError('not_found', `No campaign with id ${JSON.stringify(input.campaignId)}`)
  if (status === 'cancelled') return { status }
  // The conditional update closes the race with dispatch starting between the read and the write.
  if (
    !isEditableCampaign(status) ||
    !(await deps.store.cancelCampaign({ ...input, now: deps.clock.now() }))
  ) {
    throw new AppError(
      'conflict',
      `This campaign is already ${status === 'scheduled' ? 'sending' : status}; it can no longer be cancelled`,
    )
  }
  return { status: 'cancelled' }
}
