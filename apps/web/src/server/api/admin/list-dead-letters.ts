import { LANES } from '@fairlane/core'
import { fieldIssues, validationFailed } from '@fairlane/core/errors'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { DEAD_LETTER_STATES, type DeadLetterView, deadLetterView } from './dead-letter-view'
import type { AdminDeps } from './deps'
import { queueCall } from './queue-access'

const listQuery = z.strictObject({
  limit: z.coerce.number('must be a number').int('must be a whole number').min(1).max(500).default(50),
  offset: z.coerce.number('must be a number').int('must be a whole number').min(0).default(0),
  tenantId: z.uuid('must be a tenant id (uuid)').optional(),
  queue: z.enum(LANES, `must be one of ${LANES.join(', ')}`).optional(),
  /** Part of the error text, any case. */
  error: z.string().trim().max(200, 'must be at most 200 characters').optional(),
})

/** Jobs read per Redis round trip while a filter scans the queue. */
const SCAN_CHUNK = 500

type DeadLetterQueue = ReturnType<AdminDeps['queues']>['dead-letter']

/**
 * `GET /api/admin/dlq?limit=&offset=&tenantId=&queue=&error=` → dead letters, newest first, with the
 * total before paging in `X-Total-Count`. Unfiltered, only the requested range is read from Redis
 * (`offset` … `offset + limit − 1`, state by state). BullMQ cannot filter by payload, so a filter scans
 * the queue in chunks of `SCAN_CHUNK`, keeping only the page: memory stays one chunk, and the scan is
 * bounded because the queue is (DEAD_LETTER_MAX_COUNT). Dead letters trimmed by that cap are still
 * `failed` messages in PostgreSQL.
 */
export function listDeadLetters(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const query = listQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams))
    if (!query.success) throw validationFailed(fieldIssues(query.error))
    const { limit, offset, tenantId, queue } = query.data
    const errorText = query.data.error?.toLowerCase() || undefined
    const deadLetters = deps.queues()['dead-letter']
    const matches = (item: DeadLetterView) =>
      (tenantId === undefined || item.tenantId === tenantId) &&
      (queue === undefined || item.queue === queue) &&
      (errorText === undefined || item.error.toLowerCase().includes(errorText))
    const filtered = tenantId !== undefined || queue !== undefined || errorText !== undefined
    const { items, total } = await queueCall(() =>
      filtered ? scanPage(deadLetters, matches, offset, limit) : readPage(deadLetters, offset, limit),
    )
    return Response.json(items, {
      headers: { 'x-total-count': String(total), 'cache-control': 'no-store' },
    })
  })
}

/** The range `offset` … `offset + limit − 1` across the states in order, reading only that range. */
async function readPage(queue: DeadLetterQueue, offset: number, limit: number) {
  const counts = await queue.getJobCounts(...DEAD_LETTER_STATES)
  const items: DeadLetterView[] = []
  let skipped = 0
  for (const state of DEAD_LETTER_STATES) {
    const inState = counts[state] ?? 0
    const start = Math.max(0, offset - skipped)
    skipped += inState
    if (start >= inState || items.length >= limit) continue
    const end = Math.min(inState, start + limit - items.length) - 1
    const jobs = await queue.getJobs([state], start, end, false)
    items.push(...jobs.map(deadLetterView))
  }
  return { items, total: Object.values(counts).reduce((sum, count) => sum + count, 0) }
}

/** Every dead letter, one chunk at a time, counting the matches and keeping those on the page. */
async function scanPage(
  queue: DeadLetterQueue,
  matches: (item: DeadLetterView) => boolean,
  offset: number,
  limit: number,
) {
  const items: DeadLetterView[] = []
  let total = 0
  for (const state of DEAD_LETTER_STATES) {
    for (let start = 0; ; start += SCAN_CHUNK) {
      const jobs = await queue.getJobs([state], start, start + SCAN_CHUNK - 1, false)
      for (const item of jobs.map(deadLetterView)) {
        if (!matches(item)) continue
        if (total >= offset && items.length < limit) items.push(item)
        total++
      }
      if (jobs.length < SCAN_CHUNK) break
    }
  }
  return { items, total }
}
