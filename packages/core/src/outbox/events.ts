import { z } from 'zod'
import { LANES } from '../domain/lanes'

/**
 * The outbox's vocabulary. A row is written in the same transaction as the data it describes; the
 * relay (worker process) turns it into a lane job. `NOTIFY` on this channel wakes the relay at once;
 * its poll is only the fallback.
 */
export const OUTBOX_CHANNEL = 'fairlane_outbox'

/** "Put this message on its lane": accepted API mail, an admin replay, a sweeper re-publish. */
export const MESSAGE_PUBLISH_TOPIC = 'message.publish'

export const messagePublishEvent = z.object({
  v: z.literal(1),
  messageId: z.uuid(),
  tenantId: z.uuid(),
  lane: z.enum(LANES),
  /** The message's generation when this event was written; the job id derives from it. */
  generation: z.number().int().nonnegative(),
})
export type MessagePublishEvent = z.infer<typeof messagePublishEvent>
