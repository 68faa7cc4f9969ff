import {
  FEEDBACK_THRESHOLDS,
  FEEDBACK_WINDOW_HOURS,
  type FeedbackRates,
  feedbackSeverity,
  rateFeedback,
} from '@fairlane/core'
import { tenantFeedbackSince } from '@fairlane/db/queries/admin-feedback'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import type { AdminDeps } from './deps'

export interface TenantFeedbackView extends FeedbackRates {
  id: string
  name: string
}

/** The body of `GET /api/admin/feedback-rates`, which the console's table reads. */
export interface FeedbackRatesJson {
  windowHours: number
  thresholds: typeof FEEDBACK_THRESHOLDS
  at: string
  tenants: TenantFeedbackView[]
}

/**
 * `GET /api/admin/feedback-rates` → `{ windowHours, thresholds, at, tenants: [{ id, name, sent,
 * hardBounces, complaints, bounceRate, complaintRate, flags }] }`: every tenant with sends, bounces or
 * complaints in the last 24 hours, the worst first (flagged ones above the rest). The console reads it
 * about once a minute: the counts cover a day of events.
 */
export function getFeedbackRates(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const now = deps.clock.now()
    const since = new Date(now.getTime() - FEEDBACK_WINDOW_HOURS * 3_600_000)
    const rows = await tenantFeedbackSince(deps.db, { since })
    const tenants: TenantFeedbackView[] = rows
      .map(({ tenantId, name, ...counts }) => ({ id: tenantId, name, ...rateFeedback(counts) }))
      .sort(
        (a, b) =>
          b.flags.length - a.flags.length ||
          feedbackSeverity(b) - feedbackSeverity(a) ||
          a.name.localeCompare(b.name),
      )
    return Response.json(
      {
        windowHours: FEEDBACK_WINDOW_HOURS,
        thresholds: FEEDBACK_THRESHOLDS,
        at: now.toISOString(),
        tenants,
      } satisfies FeedbackRatesJson,
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}
