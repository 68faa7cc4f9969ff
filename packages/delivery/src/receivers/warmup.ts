import type { ReceiverRules } from './rules'

/**
 * The daily cap per provider of an egress address on its `sendingDay` (1 = its first day with
 * mail), or `undefined` once it is warm.
 */
export function warmupDailyCap(warmup: ReceiverRules['warmup'], sendingDay: number): number | undefined {
  if (!Number.isInteger(sendingDay) || sendingDay < 1) {
    throw new RangeError(`sendingDay: expected a whole number of at least 1, got ${sendingDay}`)
  }
  if (sendingDay >= warmup.warmAfterDay) return undefined
  let cap: number | undefined
  for (const step of warmup.schedule) {
    if (step.day > sendingDay) break
    cap = step.perDayPerProvider
  }
  return cap
}
