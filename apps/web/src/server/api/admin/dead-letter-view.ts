import type { Lane } from '@fairlane/core'
import { type DeadLetterPayload, deadLetterPayload } from '@fairlane/queue'
import type { QueueJob } from './queue-access'

/**
 * Nothing processes the dead-letter queue, so its jobs sit in whatever state the worker left them:
 * usually waiting, but a delay or a tool may move them. Listed in all. (BullMQ 6 has no separate
 * `paused` state: a paused queue's jobs stay in `waiting`.)
 */
export const DEAD_LETTER_STATES = ['waiting', 'prioritized', 'delayed', 'completed', 'failed'] as const

export interface DeadLetterView {
  /** The dead-letter job's id: what replay and discard take. */
  id: string
  queue: Lane | null
  messageId: string | null
  tenantId: string | null
  error: string
  attempts: number
  failedAt: string
  /** The lane job that failed. */
  laneJobId: string | null
}

export type ReadDeadLetter = { ok: true; payload: DeadLetterPayload } | { ok: false; reason: string }

export function readDeadLetter(job: QueueJob): ReadDeadLetter {
  const parsed = deadLetterPayload.safeParse(job.data)
  if (parsed.success) return { ok: true, payload: parsed.data }
  return {
    ok: false,
    reason: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
  }
}

/** A dead letter for the admin list; one whose payload does not parse is still shown, saying so. */
export function deadLetterView(job: QueueJob): DeadLetterView {
  const read = readDeadLetter(job)
  if (read.ok) {
    const { queue, messageId, tenantId, error, attempts, failedAt, jobId } = read.payload
    return { id: String(job.id), queue, messageId, tenantId, error, attempts, failedAt, laneJobId: jobId }
  }
  return {
    id: String(job.id),
    queue: null,
    messageId: null,
    tenantId: null,
    error: `unreadable dead letter (${read.reason})`,
    attempts: 0,
    failedAt: new Date(job.timestamp).toISOString(),
    laneJobId: null,
  }
}
