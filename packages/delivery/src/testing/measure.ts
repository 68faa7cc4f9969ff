import type { Database } from '@fairlane/db'
import { visibleStatus } from '@fairlane/db/queries/message-claims'
import type { MailSink } from '@fairlane/mailsink/sink'
import type { Queue } from 'bullmq'
import { sql } from 'drizzle-orm'

/**
 * Measuring helpers for the fairness tests: what the sink saw and when, how deep the bulk queue got
 * (Redis command counts: `redisCommandCalls` in @fairlane/testing). Sink times are when the sink
 * stored a message, so they include SMTP jitter.
 */

/** Epoch ms at which the sink received each message whose recipient starts with `prefix`, oldest first. */
export function receivedTimesMs(sink: MailSink, prefix: string): number[] {
  return sink.store
    .list()
    .filter((mail) => mail.to.startsWith(prefix))
    .map((mail) => Date.parse(mail.receivedAt))
}

/** How many of `timesMs` fall in the closed window `[fromMs, toMs]`. */
export function countBetween(timesMs: readonly number[], fromMs: number, toMs: number): number {
  return timesMs.filter((time) => time >= fromMs && time <= toMs).length
}

/** The nearest-rank percentile `p` (0–100] of `values`; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

/** Runs `sample` every `everyMs` (never two at once) until stopped; a failed sample fails `stop()`. */
export function startSampler(sample: () => Promise<void> | void, everyMs: number): { stop(): Promise<void> } {
  let stopped = false
  let failure: unknown
  const running = (async () => {
    while (!stopped) {
      try {
        await sample()
      } catch (error) {
        failure = error
        return
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  })()
  return {
    async stop() {
      stopped = true
      await running
      if (failure) throw failure
    },
  }
}

/** The deepest a queue got, counted as the pacer counts it: waiting + active + delayed + prioritized. */
export function sampleQueueDepth(queue: Pick<Queue, 'getJobCounts'>, everyMs = 50) {
  let peak = 0
  let samples = 0
  const sampler = startSampler(async () => {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')
    peak = Math.max(
      peak,
      Object.values(counts).reduce((sum, count) => sum + count, 0),
    )
    samples++
  }, everyMs)
  return {
    /** Stops sampling; the peak depth seen and how many samples it is the peak of. */
    async stop(): Promise<{ peak: number; samples: number }> {
      await sampler.stop()
      return { peak, samples }
    },
  }
}

/**
 * Ends whatever a test left in flight (a backlog it did not run to completion), so the next test's
 * pipeline, on the same database, does not pick it up.
 */
export async function cancelUnfinished(db: Database): Promise<void> {
  // The pipeline may still be running and locking rows of its own (relay, pacer, sends): a deadlock
  // between the two is PostgreSQL picking this statement to roll back, so it is simply run again.
  await retryOnDeadlock(() =>
    db.execute(sql`
      update messages set status = 'cancelled', updated_at = now()
      where status in ('pending', 'queued')`),
  )
  await retryOnDeadlock(() => db.execute(sql`delete from message_claims`))
  await retryOnDeadlock(() =>
    db.execute(sql`
      update campaigns set status = 'cancelled', updated_at = now()
      where status in ('scheduled', 'dispatching', 'sending')`),
  )
}

async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (error) {
      const code =
        (error as { cause?: { code?: string }; code?: string }).cause?.code ??
        (error as { code?: string }).code
      if (code !== '40P01' || attempt >= attempts) throw error
    }
  }
}

/** How many of a campaign's messages are in each status, e.g. `{ sent: 6, suppressed: 2 }`. */
export async function campaignStatusCounts(
  db: Database,
  campaignId: string,
): Promise<Record<string, number>> {
  const rows = await db.execute<{ status: string; count: number }>(sql`
    select ${visibleStatus()} as status, count(*)::int as count from messages where campaign_id = ${campaignId} group by 1`)
  return Object.fromEntries(rows.map((row) => [row.status, row.count]))
}
