import type { CampaignStatus } from '@fairlane/core'
import type { CampaignCounts } from '@fairlane/db/queries/campaigns'

/**
 * How often the campaign page asks for fresh numbers, or null to stop: every second while mail is
 * going out, every two while it waits for its time, never once it is done. A cancelled campaign is
 * done when the mail that was already being handed to SMTP has finished (`queued` then counts only
 * `sending` rows: cancelling turned the queued ones into `cancelled`).
 */
export function pollIntervalMs(view: { status: CampaignStatus; counts: CampaignCounts }): number | null {
  switch (view.status) {
    case 'dispatching':
    case 'sending':
      return 1000
    case 'draft':
    case 'scheduled':
    case 'paused':
      return 2000
    case 'cancelled':
      return view.counts.pending + view.counts.queued > 0 ? 1000 : null
    case 'sent':
      return null
  }
}

/**
 * Whole percent, rounded down so that 100 means finished rather than nearly so. The epsilon keeps
 * binary fractions such as 0.29 × 100 = 28.999… from losing a percent.
 */
export function progressPercent(progress: number): number {
  return Math.floor(progress * 100 + 1e-9)
}

/**
 * What a campaign without messages says: not dispatched yet, cancelled first, or ended with nobody to
 * send to (it was scheduled while its audience was empty, and the audience was still empty at send time).
 */
export function summaryWithoutMessages(status: CampaignStatus): string {
  if (status === 'cancelled') return 'Cancelled before dispatch: no messages were created.'
  if (status === 'sent')
    return 'Ended: no recipients. The audience was empty at send time, so nothing was sent.'
  return 'No messages yet: they are created when the campaign is dispatched.'
}
