import { LANES } from '@fairlane/core'
import { fieldIssues, validationFailed } from '@fairlane/core/errors'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { DEAD_LETTER_STATES, deadLetterView } from './dead-letter-view'
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

/**
 * `GET /api/admin/dlq?limit=&offset=&tenantId=&queue=&error=` → dead letters, newest failure first, with the
 * total before paging in `X-Total-Count`. Filtering and paging happen here: BullMQ cannot filter by
 * payload, and a dead-letter queue that needs more than this is an incident, not a list.
 */
export function listDeadLetters(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const query = listQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams))
    if (!query.success) throw validationFailed(fieldIssues(query.error))
    const { limit, offset, tenantId, queue } = query.data
    const errorText = query.data.error?.toLowerCase() || undefined
    const jobs = await queueCall(() => deps.queues()['dead-letter'].getJobs([...DEAD_LETTER_STATES]))
    const matching = jobs
      .map(deadLetterView)
      .filter(
        (item) =>
          (tenantId === undefined || item.tenantId === tenantId) &&
          (queue === undefined || item.queue === queue) &&
          (errorText === undefined || item.error.toLowerCase().includes(errorText)),
      )
      .sort((a, b) => (a.failedAt < b.failedAt ? 1 : a.failedAt > b.failedAt ? -1 : 0))
    return Response.json(matching.slice(offset, offset + limit), {
      headers: { 'x-total-count': String(matching.length), 'cache-control': 'no-store' },
    })
  })
}
