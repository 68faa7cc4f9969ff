import { z } from 'zod'
import { AppError } from '../errors/app-error'

/** How far ahead a message may be scheduled: a reminder for next month, not next year. */
export const MAX_SEND_AT_AHEAD_MS = 30 * 24 * 60 * 60 * 1000
/** A `sendAt` this far in the past is a clock a little behind, sent now; further back is a mistake. */
export const MAX_SEND_AT_PAST_MS = 60 * 1000

/** `"sendAt"`: an ISO 8601 instant with its offset (`Z` or `+01:00`), never a local time. */
export const sendAtField = {
  sendAt: z.iso
    .datetime({
      offset: true,
      error: 'must be an ISO 8601 instant with an offset, e.g. 2026-12-07T09:00:00+01:00',
    })
    .optional()
    .describe(
      'Send at this instant (up to 30 days ahead) instead of now; the message is `scheduled` until then',
    ),
}

/**
 * When a message with this `sendAt` waits until: null when it goes now (none given, or a moment in the
 * past within MAX_SEND_AT_PAST_MS). Beyond 30 days ahead or more than a minute back → 422 naming `sendAt`.
 */
export function scheduledUntil(sendAt: string | undefined, now: Date): Date | null {
  if (sendAt === undefined) return null
  const at = new Date(sendAt)
  const aheadMs = at.getTime() - now.getTime()
  if (Number.isNaN(aheadMs)) throw sendAtRefusal('is not a valid instant')
  if (aheadMs > MAX_SEND_AT_AHEAD_MS) throw sendAtRefusal('must be at most 30 days ahead')
  if (aheadMs < -MAX_SEND_AT_PAST_MS) throw sendAtRefusal('must not be more than a minute in the past')
  return aheadMs > 0 ? at : null
}

function sendAtRefusal(message: string): AppError {
  return new AppError('unprocessable', `sendAt ${message}`, { details: [{ path: 'sendAt', message }] })
}
