import { cancelCampaign } from '@fairlane/core'
import { createCampaignStore } from '@fairlane/db/queries/campaigns'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { campaignStatusCounts, receivedTimesMs } from '../../testing/measure'
import { inspectQueues, startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedCampaign, setPlan } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'

/**
 * Cancelling a campaign whose jobs are already in the bulk queue. The tenant's plan is far above
 * what five bulk workers send, and the pacer keeps up to 200 jobs in the queue, so at the cancel
 * about 200 released jobs are waiting for a worker: each must find its row cancelled and send nothing.
 */
const test = setupTestEnvironment('campaign-cancel')
const BULK_CONCURRENCY = 5
const CONTACTS = 4_000
let sink: MailSink
let pipeline: TestPipeline
let inspect: ReturnType<typeof inspectQueues>

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(test, sink, {
    logger: testLogger(process.env.TEST_LOG_LEVEL),
    pacer: { highWater: 200, horizonMs: 1_000 },
    concurrency: { critical: 10, default: 5, bulk: BULK_CONCURRENCY },
  })
  inspect = inspectQueues(test)
})
afterAll(async () => {
  await inspect?.close()
  await pipeline?.stop()
  await sink?.close()
})

/** The bulk lane has nothing left to run: every released job had its turn. */
async function bulkLaneIdle(): Promise<boolean> {
  const counts = await inspect.lane('bulk').getJobCounts('waiting', 'active', 'delayed', 'prioritized')
  return Object.values(counts).every((count) => count === 0)
}

it('a campaign cancelled while its jobs wait in the bulk queue sends none of them and says how many went', async () => {
  const { db } = pipeline.database
  const tenantId = await createTenant(db, 'Second thoughts')
  await setPlan(db, tenantId, { ratePerSec: 1_000, burst: 1_000 })
  const { campaignId, prefix } = await seedCampaign(db, { tenantId, contacts: CONTACTS })
  await eventually(
    async () => {
      const counts = await campaignStatusCounts(db, campaignId)
      // Its whole audience dispatched (500 rows a batch): a cancel before that would leave rows the
      // dispatch never wrote, in neither count.
      const rows = Object.values(counts).reduce((sum, count) => sum + (count ?? 0), 0)
      return receivedTimesMs(sink, prefix).length >= 20 && (counts.queued ?? 0) >= 100 && rows === CONTACTS
    },
    { what: 'the campaign dispatched and sending, with jobs waiting in the bulk queue', timeoutMs: 20_000 },
  )

  // The use case the API's cancel runs, and its answer.
  const answer = await cancelCampaign(
    { tenantId, campaignId },
    { store: createCampaignStore(db), clock: { now: () => new Date() } },
  )
  expect(answer.status).toBe('cancelled')
  // Everything not yet claimed by a worker: the pending rows and the ≥ 100 queued ones.
  expect(answer.cancelled).toBeGreaterThanOrEqual(CONTACTS - answer.sent - BULK_CONCURRENCY)
  // The released jobs still run, find their rows cancelled, and send nothing.
  await eventually(
    async () => ((await campaignStatusCounts(db, campaignId)).sending ?? 0) === 0 && (await bulkLaneIdle()),
    { what: 'every released job of the cancelled campaign run', timeoutMs: 30_000 },
  )
  const statuses = await campaignStatusCounts(db, campaignId)
  const sent = statuses.sent ?? 0
  expect(statuses).toEqual({ sent, cancelled: answer.cancelled })
  expect(receivedTimesMs(sink, prefix)).toHaveLength(sent)
  // What went: the answer's count, plus at most the sends a bulk worker had claimed at that moment.
  expect(sent).toBeGreaterThanOrEqual(answer.sent)
  expect(sent - answer.sent).toBeLessThanOrEqual(BULK_CONCURRENCY)
  expect(duplicateMessageIds(sink)).toEqual([])
  expect(
    (await db.execute<{ status: string }>(sql`select status from campaigns where id = ${campaignId}`))[0],
  ).toEqual({ status: 'cancelled' })
})
