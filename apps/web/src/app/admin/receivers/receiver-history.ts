'use client'

import { useEffect, useState } from 'react'
import type { ReceiversJson } from '@/server/api/admin/receivers'

/** One sample of the chart: seconds since the epoch, and each receiver's allowed rate by its key. */
export type RateSample = { t: number } & Record<string, number>

/** Five minutes of the console's 2-second poll. */
export const HISTORY_SAMPLES = 150
/** Lines on the chart: the receivers held furthest below their ceiling first. */
export const CHART_RECEIVERS = 6

export const receiverKey = (receiver: { provider: string; egress: string }) =>
  `${receiver.provider} @ ${receiver.egress || 'default'}`

/**
 * The allowed rate of each receiver as this page has sampled it since it opened: no series of the
 * rates is stored anywhere (the state is computed at read time), so the chart is the page's own
 * memory of the answers to its poll, up to `HISTORY_SAMPLES`.
 */
export function useRateHistory(data: ReceiversJson | null): RateSample[] {
  const [history, setHistory] = useState<RateSample[]>([])
  useEffect(() => {
    if (!data) return
    const sample: RateSample = { t: Math.round(Date.now() / 1000) }
    for (const receiver of data) sample[receiverKey(receiver)] = receiver.ratePerMinute
    setHistory((previous) => [...previous, sample].slice(-HISTORY_SAMPLES))
  }, [data])
  return history
}

/** The receivers the chart draws: paused or slowed ones first, then by name. */
export function chartedReceivers(data: ReceiversJson): string[] {
  const held = (receiver: ReceiversJson[number]) =>
    receiver.pausedUntil
      ? 0
      : receiver.ratePerMinute / ((receiver.ceilingPerMinute ?? receiver.ratePerMinute) || 1)
  return [...data]
    .sort((a, b) => held(a) - held(b) || receiverKey(a).localeCompare(receiverKey(b)))
    .slice(0, CHART_RECEIVERS)
    .map(receiverKey)
}
