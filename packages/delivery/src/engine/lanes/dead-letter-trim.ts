import type { Queue } from 'bullmq'

/** Dead letters stay in their queue until replayed or discarded; no worker moves them, so any state counts. */
export const DEAD_LETTER_STATES = [
  'waiting',
  'prioritized',
  'delayed',
  'active',
  'completed',
  'failed',
] as const

/** Dead letters removed per Redis round trip, and round trips per pass: a pass stays short. */
const BATCH = 500
const MAX_BATCHES = 20

export interface DeadLetterTrimDeps {
  queue: Pick<Queue, 'clean' | 'getJobCounts' | 'getJobs' | 'remove'>
  /** DEAD_LETTER_MAX_COUNT and DEAD_LETTER_MAX_AGE_DAYS. */
  caps: { maxCount: number; maxAgeDays: number }
}

/**
 * Keeps the dead-letter queue within its caps: dead letters whose failure is older than
 * `maxAgeDays` (their job timestamp is the failure's, see `deadLetterJob`), then the oldest beyond
 * `maxCount`. The queue Redis runs `noeviction`: a tenant sending to addresses that answer 5xx would
 * otherwise grow it until every write fails, login codes included. What is trimmed stays a `failed`
 * message in PostgreSQL (its error, attempts and time), the record the restore also reads. Bounded
 * per pass (`BATCH` × `MAX_BATCHES`); the next pass, seconds later, takes the rest.
 */
export async function trimDeadLetters(deps: DeadLetterTrimDeps): Promise<{ byAge: number; byCount: number }> {
  const { queue, caps } = deps
  const maxAgeMs = caps.maxAgeDays * 86_400_000
  let byAge = 0
  let byCount = 0
  // `clean` compares each waiting job's timestamp with now − grace, scanning from the oldest end up to
  // 10,000 entries per script call; with the count cap applied below, that is the whole queue. A
  // limit would scan only that many entries at the tail and miss an old restored dead letter further in.
  byAge += (await queue.clean(maxAgeMs, 0, 'wait')).length
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const counts = await queue.getJobCounts('waiting')
    const excess = (counts.waiting ?? 0) - caps.maxCount
    if (excess <= 0) break
    // Ascending: the wait list's tail, the dead letters added first.
    const oldest = await queue.getJobs(['waiting'], 0, Math.min(excess, BATCH) - 1, true)
    if (oldest.length === 0) break
    await Promise.all(oldest.map((job) => (job.id ? queue.remove(job.id) : Promise.resolve(0))))
    byCount += oldest.length
  }
  return { byAge, byCount }
}
