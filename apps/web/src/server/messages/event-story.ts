import type { MessageEventType } from '@fairlane/core'
import { DELIVERY_ERROR_REASONS, isDeliveryErrorCode } from '@fairlane/core/delivery'

/** One line of a message's timeline: what happened, in words, and the facts the event carries. */
export interface EventLine {
  label: string
  /** Name and value pairs, shown as text (React escapes them): a reply, a diagnostic, a code. */
  facts: { name: string; value: string }[]
}

const LABELS: Record<MessageEventType, string> = {
  accepted: 'Accepted',
  queued: 'Queued for delivery',
  deferred: 'Deferred: waiting for the plan’s sending rate',
  sent: 'Accepted by the receiving server',
  retrying: 'Temporary failure; another attempt follows',
  failed: 'Failed',
  bounced: 'Bounced',
  complained: 'Marked as spam by the recipient',
  suppressed: 'Not sent: the address is suppressed',
  unsubscribed: 'The recipient unsubscribed with this message’s link',
  opened: 'Opened',
  clicked: 'Link clicked',
  scheduled: 'Scheduled: waiting for its send time',
  cancelled: 'Cancelled before its send time',
}

/** Longest value shown for one fact; the stored diagnostic is already capped, this keeps a line a line. */
const MAX_FACT_LENGTH = 1_000

/**
 * How the message page tells one event (`detail` shapes: I15-DESIGN, "Event detail shapes"). Unknown
 * or missing fields are left out rather than guessed; a delivery error code comes with its fixed
 * reason, as the API's `lastError` does.
 */
export function describeEvent(
  event: {
    type: MessageEventType
    detail: Record<string, unknown> | null
  },
  /** The page's time: a deferral still ahead says how soon the next try is. */
  now?: Date,
): EventLine {
  const detail = event.detail ?? {}
  const facts: EventLine['facts'] = []
  const add = (name: string, value: unknown) => {
    const text = factText(value)
    if (text !== null) facts.push({ name, value: text })
  }
  let label = LABELS[event.type]
  switch (event.type) {
    case 'accepted':
      if (typeof detail.campaignId === 'string') label = 'Accepted (campaign dispatch)'
      add('lane', detail.lane)
      break
    case 'sent':
      add('server reply', detail.response)
      break
    case 'retrying':
    case 'failed':
      if (isDeliveryErrorCode(detail.code)) add('reason', DELIVERY_ERROR_REASONS[detail.code])
      add('code', detail.code)
      add(event.type === 'retrying' ? 'attempt' : 'attempts', detail.attempt ?? detail.attempts)
      break
    case 'deferred':
      // MX mode: the receiving provider deferred it (throttling, or no room in its budget), in its words.
      if (typeof detail.provider === 'string' && detail.provider.length > 0) {
        const reply = factText(detail.reply)
        const next = typeof detail.untilMs === 'number' && now ? nextTryText(detail.untilMs, now) : null
        label = `Deferred by ${detail.provider}${reply ? `: ${reply}` : ''}${next ? `, next try ${next}` : ''}`
      }
      if (typeof detail.untilMs === 'number') add('until', new Date(detail.untilMs).toISOString())
      break
    case 'bounced':
      if (detail.kind === 'hard' || detail.kind === 'soft') label = `Bounced (${detail.kind})`
      add('status', detail.status)
      add('action', detail.action)
      add('diagnostic', detail.diagnostic)
      add('reported by', detail.reportingMta)
      break
    case 'complained':
      add('feedback type', detail.feedbackType)
      break
    case 'suppressed':
      add('reason', detail.reason)
      break
    case 'unsubscribed':
      add('how', detail.source)
      break
    case 'opened':
    case 'clicked':
      add('url', detail.url)
      // Later hits of the same window are counted on the event, not written (TRACKING_REPEAT_WINDOW_MS).
      add('hits after this one', detail.repeats)
      add('last hit', detail.lastAt)
      break
    default:
      break
  }
  return { label, facts }
}

function factText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value !== 'string' || value.length === 0) return null
  return value.length > MAX_FACT_LENGTH ? `${value.slice(0, MAX_FACT_LENGTH - 1)}…` : value
}

/** "in 40 s", "in 3 min", "in 2 h"; null once the time has passed. */
export function nextTryText(untilMs: number, now: Date): string | null {
  const seconds = Math.ceil((untilMs - now.getTime()) / 1000)
  if (seconds <= 0) return null
  if (seconds < 60) return `in ${seconds} s`
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `in ${minutes} min`
  return `in ${Math.round(minutes / 6) / 10} h`
}
