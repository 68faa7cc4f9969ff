import type { CampaignStatus } from '../domain/statuses'

/** A campaign's messages in each terminal status (`TERMINAL_MESSAGE_STATUSES`). */
export interface TerminalCounts {
  sent: number
  failed: number
  suppressed: number
  cancelled: number
}

/**
 * How far a campaign has got, from 0 to 1: its terminal messages over the messages dispatch has
 * created so far (`recipientCount`). While dispatch runs the denominator still grows, so the bar can
 * step back; a campaign not dispatched yet is at 0, and a sent one is at 1 whatever the counts say
 * (rows written before `recipient_count` existed are not in it).
 */
export function campaignProgress(input: {
  status: CampaignStatus
  recipientCount: number
  counts: TerminalCounts
}): number {
  if (input.status === 'sent') return 1
  if (input.recipientCount <= 0) return 0
  const { sent, failed, suppressed, cancelled } = input.counts
  return Math.min(1, Math.max(0, (sent + failed + suppressed + cancelled) / input.recipientCount))
}
