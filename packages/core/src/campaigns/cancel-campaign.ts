import type { Clock } from '../accept/ports'
import { AppError } from '../errors/app-error'
import { type CampaignCancellation, type CampaignStore, isCancellableCampaign } from './ports'

export interface CancelCampaignDeps {
  store: Pick<CampaignStore, 'findCampaignStatus' | 'cancelCampaign' | 'countSentMessages'>
  clock: Clock
}

export interface CancelledCampaign extends CampaignCancellation {
  status: 'cancelled'
}

/**
 * Cancels a campaign that has not finished: a draft or scheduled one sends nothing; one being
 * dispatched or sent keeps what already went, and its messages not yet handed to SMTP are held back
 * (the dispatcher stops at its next batch, a worker finds a queued job's row terminal and skips it).
 * A sent campaign is refused; cancelling twice is fine (the second cancels nothing more).
 */
export async function cancelCampaign(
  input: { tenantId: string; campaignId: string },
  deps: CancelCampaignDeps,
): Promise<CancelledCampaign> {
  let status = await deps.store.findCampaignStatus(input)
  if (status !== null && isCancellableCampaign(status)) {
    // The write is conditional on the status, closing the race with the worker finishing the campaign.
    const cancellation = await deps.store.cancelCampaign({ ...input, now: deps.clock.now() })
    if (cancellation) return { status: 'cancelled', ...cancellation }
    status = await deps.store.findCampaignStatus(input)
  }
  if (status === null)
    throw new AppError('not_found', `No campaign with id ${JSON.stringify(input.campaignId)}`)
  if (status === 'cancelled') return { status, sent: await deps.store.countSentMessages(input), cancelled: 0 }
  // Only `sent` is left: every message is terminal, so there is nothing to hold back.
  throw new AppError('conflict', `This campaign is already ${status}; there is nothing left to cancel`)
}
