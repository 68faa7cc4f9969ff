/** An address's soft bounces as `address_bounces` keeps them (softCount 0: none counted yet). */
export interface SoftBounceRecord {
  softCount: number
  /** The first soft bounce of the current count. */
  windowStart: Date
  lastSoftAt: Date
  lastMessageId: string | null
}

export interface SoftBounceInput {
  now: Date
  /** The message that soft-bounced now. */
  messageId: string
  /** Whether a message to the address was delivered (`sent`) after the last soft bounce counted. */
  deliveredSinceLast: boolean
  /** SOFT_BOUNCE_LIMIT. */
  limit: number
  windowDays: number
}

export interface SoftBounceCount {
  record: SoftBounceRecord
  /** False when this message had already been counted (a second notice about one delivery). */
  counted: boolean
  /** True when this bounce was counted and the count is at the limit (or past it): suppress now. */
  suppress: boolean
}

/**
 * One more soft bounce for an address. Counts at most once per message (a delay warning and the
 * final "gave up" for one mail are one bounce); starts again from 1 when the count's window is older
 * than `windowDays` or a delivery went through since the last one: only `limit` soft bounces in a
 * row, within the window, say the address is not worth mailing.
 */
export function countSoftBounce(previous: SoftBounceRecord | null, input: SoftBounceInput): SoftBounceCount {
  if (previous !== null && previous.softCount > 0 && previous.lastMessageId === input.messageId) {
    return { record: previous, counted: false, suppress: false }
  }
  const windowMs = input.windowDays * 24 * 60 * 60 * 1000
  const fresh =
    previous === null ||
    previous.softCount === 0 ||
    input.deliveredSinceLast ||
    input.now.getTime() - previous.windowStart.getTime() > windowMs
  const record: SoftBounceRecord = fresh
    ? { softCount: 1, windowStart: input.now, lastSoftAt: input.now, lastMessageId: input.messageId }
    : {
        softCount: previous.softCount + 1,
        windowStart: previous.windowStart,
        lastSoftAt: input.now,
        lastMessageId: input.messageId,
      }
  return { record, counted: true, suppress: record.softCount >= input.limit }
}
