import { INBOUND_KINDS, type InboundKind } from '@fairlane/core'
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'

/** Why the server refused a message or a recipient before reading any report. */
export const REFUSALS = [
  'bad-recipient',
  'too-many-recipients',
  'too-large',
  'timeout',
  'too-many-connections',
  'error',
] as const
export type Refusal = (typeof REFUSALS)[number]

export interface InboundMetrics {
  registry: Registry
  /** One per report and return path: `fairlane_inbound_messages_total{kind}`. */
  message(kind: InboundKind): void
  refused(reason: Refusal): void
  setPendingStatuses(count: number): void
}

export function createInboundMetrics(): InboundMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const messages = new Counter({
    name: 'fairlane_inbound_messages_total',
    help: 'Reports received at return paths, by what they turned out to be (forged: refused at RCPT or naming another tenant)',
    labelNames: ['kind'],
    registers: [registry],
  })
  const refusals = new Counter({
    name: 'fairlane_inbound_refusals_total',
    help: 'Recipients and messages the inbound server refused, by reason',
    labelNames: ['reason'],
    registers: [registry],
  })
  const pending = new Gauge({
    name: 'fairlane_inbound_pending_statuses',
    help: 'Messages whose bounce or complaint is recorded but whose send is not yet, waiting for their status',
    registers: [registry],
  })
  // Every series from the start: a rate over a counter that appears only at its first increment misses it.
  for (const kind of INBOUND_KINDS) messages.inc({ kind }, 0)
  for (const reason of REFUSALS) refusals.inc({ reason }, 0)
  return {
    registry,
    message: (kind) => messages.inc({ kind }),
    refused: (reason) => refusals.inc({ reason }),
    setPendingStatuses: (count) => pending.set(count),
  }
}
