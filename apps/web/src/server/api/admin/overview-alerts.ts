import type { Lane } from '@fairlane/core'
import type { LaneStats } from './queue-stats'

/** When the overview turns red. Mirrors the spirit of the worker's alert rules, at a glance. */
export const OVERVIEW_THRESHOLDS = {
  /** A login code older than this in the critical lane is a user staring at an empty inbox. */
  criticalOldestWaitingMs: 5_000,
  /** Other transactional mail may queue briefly; longer means the lane is stuck. */
  defaultOldestWaitingMs: 60_000,
  /** The relay publishes within a second normally; this far behind, nothing reaches Redis. */
  outboxLagMs: 30_000,
  /** Every dead letter is a message that will not go out until an admin acts. */
  deadLetters: 0,
} as const

export interface OverviewAlert {
  key: 'critical-oldest' | 'default-oldest' | 'outbox-lag' | 'dead-letters'
  message: string
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** The thresholds crossed by these numbers, most urgent first; empty when all is well. */
export function overviewAlerts(input: {
  lanes: Record<Lane, LaneStats>
  deadLetter: number
  outboxLagMs: number
}): OverviewAlert[] {
  const alerts: OverviewAlert[] = []
  const t = OVERVIEW_THRESHOLDS
  if (input.lanes.critical.oldestWaitingAgeMs > t.criticalOldestWaitingMs) {
    alerts.push({
      key: 'critical-oldest',
      message: `Critical mail has waited ${seconds(input.lanes.critical.oldestWaitingAgeMs)} (limit ${seconds(t.criticalOldestWaitingMs)})`,
    })
  }
  if (input.lanes.default.oldestWaitingAgeMs > t.defaultOldestWaitingMs) {
    alerts.push({
      key: 'default-oldest',
      message: `Default-lane mail has waited ${seconds(input.lanes.default.oldestWaitingAgeMs)} (limit ${seconds(t.defaultOldestWaitingMs)})`,
    })
  }
  if (input.outboxLagMs > t.outboxLagMs) {
    alerts.push({
      key: 'outbox-lag',
      message: `The outbox relay is ${seconds(input.outboxLagMs)} behind (limit ${seconds(t.outboxLagMs)})`,
    })
  }
  if (input.deadLetter > t.deadLetters) {
    alerts.push({
      key: 'dead-letters',
      message: `${input.deadLetter} dead letter${input.deadLetter === 1 ? '' : 's'} waiting for an admin`,
    })
  }
  return alerts
}
