import type { Database } from '@fairlane/db'
import { countSendingDaysBefore, recordSendingDay } from '@fairlane/db/queries/egress-days'
import type { WarmupCheck } from '@fairlane/delivery/receiver-gate'
import type { ReceiverRules } from '@fairlane/delivery/receivers/rules'
import { warmupDailyCap } from '@fairlane/delivery/receivers/warmup'
import { utcDay } from '@fairlane/delivery/shaping/warmup'
import type { RedisClient } from '@fairlane/queue'

const DAY_MS = 86_400_000

/**
 * The warm-up of the egress addresses the rules file lists as warming (`warmup.addresses`): each
 * provider takes at most the schedule's cap a day from such an address, by its *sending* day (days
 * it sent mail, in `egress_sending_days`). Today's count per address and provider is a Redis counter
 * (a flush forgets today's count: the cap can then be passed once that day, never the rate); mail
 * over the cap waits for the next UTC day.
 */
export function createWarmupCheck(deps: {
  rules: ReceiverRules
  db: Database
  redis: RedisClient
  /** QUEUE_PREFIX with its separator. */
  prefix: string
}): WarmupCheck {
  const warming = new Set(deps.rules.warmup.addresses)
  const sendingDayOf = new Map<string, { day: string; sendingDay: number }>()
  const recorded = new Set<string>()
  return {
    async admit({ egress, provider, nowMs }) {
      if (!warming.has(egress)) return { ok: true }
      const today = utcDay(nowMs)
      let known = sendingDayOf.get(egress)
      if (known?.day !== today) {
        known = {
          day: today,
          sendingDay: (await countSendingDaysBefore(deps.db, { egress, day: today })) + 1,
        }
        sendingDayOf.set(egress, known)
      }
      const cap = warmupDailyCap(deps.rules.warmup, known.sendingDay)
      if (cap !== undefined) {
        // One hash tag per address and provider: the counter's slot on a Redis Cluster.
        const key = `${deps.prefix}warmup:{${egress}|${provider}}:${today}`
        const sent = await deps.redis.incr(key)
        if (sent === 1) await deps.redis.pexpire(key, 2 * DAY_MS)
        if (sent > cap) {
          await deps.redis.decr(key)
          return {
            ok: false,
            untilMs: (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS,
            cap,
            sendingDay: known.sendingDay,
          }
        }
      }
      const dayKey = `${egress}|${today}`
      if (!recorded.has(dayKey)) {
        await recordSendingDay(deps.db, { egress, day: today })
        recorded.add(dayKey)
      }
      return { ok: true }
    },
  }
}
