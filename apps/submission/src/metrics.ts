import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client'

/** Why the server refused a login, a recipient or a message. */
export const REFUSALS = [
  'bad-key',
  'auth-throttled',
  'revoked-key',
  'sender',
  'too-many-recipients',
  'too-large',
  'over-plan',
  'invalid',
  'timeout',
  'too-many-connections',
  'error',
] as const
export type Refusal = (typeof REFUSALS)[number]

export interface SubmissionMetrics {
  registry: Registry
  /** Messages written (one per recipient): `fairlane_submission_messages_total`. */
  accepted(count: number): void
  refused(reason: Refusal): void
  /** From the end of DATA to the reply, in ms. */
  replied(ms: number): void
}

export function createSubmissionMetrics(): SubmissionMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const messages = new Counter({
    name: 'fairlane_submission_messages_total',
    help: 'Messages accepted over SMTP submission (one per recipient), each written with its outbox row',
    registers: [registry],
  })
  const refusals = new Counter({
    name: 'fairlane_submission_refusals_total',
    help: 'Logins, recipients and messages the submission server refused, by reason',
    labelNames: ['reason'],
    registers: [registry],
  })
  const reply = new Histogram({
    name: 'fairlane_submission_data_reply_seconds',
    help: 'From the end of DATA to the reply (250 after the commit, or the refusal)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  // Every series from the start: a rate over a counter that appears only at its first increment misses it.
  for (const reason of REFUSALS) refusals.inc({ reason }, 0)
  return {
    registry,
    accepted: (count) => messages.inc(count),
    refused: (reason) => refusals.inc({ reason }),
    replied: (ms) => reply.observe(ms / 1000),
  }
}
