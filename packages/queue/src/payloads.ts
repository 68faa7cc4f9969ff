import { LANES } from '@fairlane/core'
import { z } from 'zod'

/**
 * What a lane job carries: ids and a version, never addresses or bodies. The row in PostgreSQL is
 * the truth; a payload is only a pointer to it, so it cannot go stale and holds no personal data.
 * Bump `v` (and accept both versions in the worker) when the shape changes while jobs are in flight.
 */
export const sendJobPayload = z.object({
  v: z.literal(1),
  messageId: z.uuid(),
  tenantId: z.uuid(),
  /**
   * Set once the SMTP server accepted the message under this claim and marking it sent failed: the
   * job then only records the send with this token, never sends again (a worker that does not know
   * the field would resend once the claim expires, with the same Message-ID, which is the old rule).
   */
  acceptedLockToken: z.uuid().optional(),
  /** With `acceptedLockToken`: the server's reply (addresses taken out), for the `sent` event. */
  acceptedResponse: z.string().max(1_000).optional(),
  /**
   * A new flow's first turn (the pacer's `fresh` bulk job): added ahead of the old flows' jobs
   * (`OLD_FLOWS_PRIORITY`), and its SMTP connection is taken ahead of the sends waiting for one.
   */
  fresh: z.literal(true).optional(),
})
export type SendJobPayload = z.infer<typeof sendJobPayload>

/** The most messages a batch job carries (BULK_BATCH_SIZE's ceiling). */
export const MAX_BATCH_MESSAGES = 500

/**
 * A message of a batch that goes on as its own job (`sendJob`): transient, unknown outcome, or
 * accepted and not recorded (then with the accepted claim's token, so its job only records it).
 */
export const batchHandOff = z.object({
  messageId: z.uuid(),
  generation: z.number().int().nonnegative(),
  delayMs: z.number().int().nonnegative(),
  acceptedLockToken: z.uuid().optional(),
  acceptedResponse: z.string().max(1_000).optional(),
})
export type BatchHandOff = z.infer<typeof batchHandOff>

/**
 * The lanes whose jobs may carry a batch: bulk (the pacer's) and default (the relay's, TX_BATCH_SIZE).
 * Never critical: a login code must not wait behind others sent in sequence on one connection.
 */
export const BATCH_LANES = ['bulk', 'default'] as const
export type BatchLane = (typeof BATCH_LANES)[number]

/**
 * What a batch job carries (`sendBatchJob`): one tenant's messages, in the order the pacer (bulk) or
 * the relay (default) published them, ids only as for one message. A job deferred with part of its
 * batch unsent carries the rest (its data is updated, the job id stays). A run whose hand-offs could
 * not be added keeps them in `handOffs` and fails: its retry adds them, and sends none of them (an
 * accepted one would otherwise be sent again once its claim expired); `messageIds` then holds only
 * what is left to send. `laneSlots` (default lane only): the tenant's lane slots the relay admitted
 * the messages under (their own jobs' ids), given back when the batch leaves the lane.
 */
export const sendBatchJobPayload = z
  .object({
    /** 2: a batch of several tenants' turns (`tenantOf`), which a worker of version 1 must refuse. */
    v: z.union([z.literal(1), z.literal(2)]),
    /** The tenant of every message; with `tenantOf`, of the first, and the job's shard. */
    tenantId: z.uuid(),
    /**
     * Bulk only: the short turns of several tenants packed into one job (newcomers' first turns, or
     * small turns of tenants already sending; `inPlanBatches`): each message's tenant by its id,
     * `tenantId`'s own included.
     */
    tenantOf: z
      .record(z.uuid(), z.uuid())
      .refine(
        (tenants) => Object.keys(tenants).length <= MAX_BATCH_MESSAGES,
        `a batch carries at most ${MAX_BATCH_MESSAGES} messages`,
      )
      .optional(),
    lane: z.enum(BATCH_LANES),
    messageIds: z
      .array(z.uuid())
      .max(MAX_BATCH_MESSAGES, `a batch carries at most ${MAX_BATCH_MESSAGES} messages`)
      .refine((ids) => new Set(ids).size === ids.length, 'a batch carries each message once'),
    handOffs: z.array(batchHandOff).max(MAX_BATCH_MESSAGES).optional(),
    laneSlots: z.array(z.string().min(1).max(100)).max(MAX_BATCH_MESSAGES).optional(),
    /**
     * A new flow's first turn (the pacer's `fresh` bulk job): added ahead of the old flows' jobs
     * (`OLD_FLOWS_PRIORITY`), and its SMTP connection is taken ahead of the sends waiting for one.
     */
    fresh: z.literal(true).optional(),
  })
  .refine((batch) => batch.messageIds.length > 0 || (batch.handOffs?.length ?? 0) > 0, {
    message: 'a batch carries at least one message',
    path: ['messageIds'],
  })
  .refine((batch) => (batch.v === 2) === (batch.tenantOf !== undefined), {
    message: 'a batch of several tenants is version 2, and only it names each message’s tenant',
    path: ['tenantOf'],
  })
  .refine(
    (batch) =>
      batch.tenantOf === undefined ||
      (batch.lane === 'bulk' &&
        batch.messageIds.every((id) => batch.tenantOf?.[id] !== undefined) &&
        (batch.handOffs ?? []).every((handOff) => batch.tenantOf?.[handOff.messageId] !== undefined)),
    {
      message: 'a batch of several tenants is a bulk job naming the tenant of each of its messages',
      path: ['tenantOf'],
    },
  )
export type SendBatchJobPayload = z.infer<typeof sendBatchJobPayload>

/** The tenant of one of a batch's messages: `tenantOf`'s, else the batch's. */
export function batchTenantOf(
  batch: Pick<SendBatchJobPayload, 'tenantId' | 'tenantOf'>,
  messageId: string,
): string {
  return batch.tenantOf?.[messageId] ?? batch.tenantId
}

/** Every tenant a batch carries messages of, the batch's own first. */
export function batchTenants(batch: Pick<SendBatchJobPayload, 'tenantId' | 'tenantOf'>): string[] {
  return [...new Set([batch.tenantId, ...Object.values(batch.tenantOf ?? {})])]
}

/** A dead letter: where the job came from and why it ended, for the admin console and replay. */
export const deadLetterPayload = z.object({
  v: z.literal(1),
  queue: z.enum(LANES),
  jobId: z.string(),
  messageId: z.uuid(),
  tenantId: z.uuid(),
  error: z.string(),
  attempts: z.number().int().nonnegative(),
  failedAt: z.iso.datetime(),
})
export type DeadLetterPayload = z.infer<typeof deadLetterPayload>
