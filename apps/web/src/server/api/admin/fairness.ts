import { fieldIssues, validationFailed } from '@fairlane/core/errors'
import {
  bulkSendsByTenant,
  type CampaignStart,
  recentCampaignStarts,
} from '@fairlane/db/queries/admin-fairness'
import { listTenantLoads } from '@fairlane/db/queries/admin-tenants'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import type { AdminDeps } from './deps'
import { type BulkShares, bulkShares, OTHERS, stackedRates } from './fairness-view'

const fairnessQuery = z.strictObject({
  windowSeconds: z.coerce
    .number('must be a number')
    .int('must be a whole number')
    .min(30)
    .max(900)
    .default(180),
  bucketSeconds: z.coerce.number('must be a number').int('must be a whole number').min(1).max(60).default(5),
  top: z.coerce.number('must be a number').int('must be a whole number').min(1).max(20).default(6),
})

/** The body of `GET /api/admin/fairness`, which the console's chart and tables read. */
export interface FairnessJson extends BulkShares {
  windowSeconds: number
  bucketSeconds: number
  /** The chart's stacks: the busiest tenants by id, then `others`. */
  series: { key: string; name: string }[]
  points: ReturnType<typeof stackedRates>['points']
  campaigns: CampaignStartJson[]
  at: string
}

export interface CampaignStartJson extends Omit<CampaignStart, 'sendAt' | 'firstSentAt'> {
  sendAt: string
  firstSentAt: string | null
  /** From the send time to the first send; null until one is sent. */
  firstSendMs: number | null
}

/**
 * `GET /api/admin/fairness?windowSeconds=180&bucketSeconds=5&top=6` → `{ windowSeconds, bucketSeconds,
 * series: [{ key, name }], points: [{ t, <key>: sends/s }], shares: [...], jainIndex, competedSeconds,
 * campaigns: [...] }`:
 * who got the bulk lane lately, against their weights, and how long recent campaigns waited for their
 * first send. The bucket in progress is left out so the chart's edge is not always a dip.
 */
export function getFairness(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const query = fairnessQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams))
    if (!query.success) throw validationFailed(fieldIssues(query.error))
    const { windowSeconds, bucketSeconds, top } = query.data
    const now = deps.clock.now()
    const last = Math.floor(now.getTime() / 1000 / bucketSeconds) * bucketSeconds - bucketSeconds
    const first = last - Math.floor(windowSeconds / bucketSeconds) * bucketSeconds + bucketSeconds
    const [buckets, tenants, campaigns] = await Promise.all([
      bulkSendsByTenant(deps.db, { since: new Date(first * 1000), bucketSeconds }),
      // Shares are over every tenant; not paged, bounded well above any platform this runs.
      listTenantLoads(deps.db, { now, limit: 10_000 }),
      recentCampaignStarts(deps.db, { now, limit: 15 }),
    ])
    const inWindow = buckets.filter((bucket) => bucket.t >= first && bucket.t <= last)
    const names = new Map(tenants.map((tenant) => [tenant.id, tenant.name]))
    const chart = stackedRates({ buckets: inWindow, first, last, bucketSeconds, topN: top })
    const sentBy = new Map<string, number>()
    for (const bucket of inWindow)
      sentBy.set(bucket.tenantId, (sentBy.get(bucket.tenantId) ?? 0) + bucket.sent)
    const { shares, jainIndex, competedSeconds } = bulkShares(
      tenants.map((tenant) => ({
        tenantId: tenant.id,
        name: tenant.name,
        weight: tenant.plan.weight,
        ratePerSec: tenant.plan.ratePerSec,
        sent: sentBy.get(tenant.id) ?? 0,
        backlog: tenant.backlog.pending + tenant.backlog.queued,
      })),
      inWindow,
      bucketSeconds,
    )
    return Response.json(
      {
        windowSeconds,
        bucketSeconds,
        series: chart.keys.map((key) => ({
          key,
          name: key === OTHERS ? 'Others' : (names.get(key) ?? key),
        })),
        points: chart.points,
        shares,
        jainIndex,
        competedSeconds,
        campaigns: campaigns.map((campaign) => ({
          ...campaign,
          sendAt: campaign.sendAt.toISOString(),
          firstSentAt: campaign.firstSentAt?.toISOString() ?? null,
          firstSendMs:
            campaign.firstSentAt === null
              ? null
              : Math.max(0, campaign.firstSentAt.getTime() - campaign.sendAt.getTime()),
        })),
        at: now.toISOString(),
      } satisfies FairnessJson,
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}
