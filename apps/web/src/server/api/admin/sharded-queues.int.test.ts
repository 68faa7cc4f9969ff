import { randomUUID } from 'node:crypto'
import { tenantShard } from '@fairlane/queue'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  TEST_ADMIN_TOKEN,
  type WebHarness,
} from '../../test-support/harness'
import { getQueueStats } from './queue-stats'
import { replayDeadLetter } from './replay-dead-letter'

/** The admin console with LANE_SHARDS=3: a lane's numbers are its shards' together. */
const env = setupTestEnvironment('web-admin-shards')
const SHARDS = 3
let harness: WebHarness

beforeAll(() => {
  harness = createWebHarness(env, { laneShards: SHARDS })
})
afterAll(async () => {
  await harness?.close()
})

/** A tenant id whose jobs go to `shard`. */
function tenantOnShard(shard: number): string {
  for (;;) {
    const tenantId = randomUUID()
    if (tenantShard(tenantId, SHARDS) === shard) return tenantId
  }
}

describe('the admin console over sharded lanes', () => {
  it("sums a lane's shards and finds its oldest waiting job in any of them", async () => {
    const lanes = harness.queues.lanes
    await lanes.queueFor('critical', tenantOnShard(0)).add('send', { v: 1 }, { jobId: 'a' })
    await lanes.queueFor('critical', tenantOnShard(1)).add('send', { v: 1 }, { jobId: 'b' })
    await lanes
      .queueFor('critical', tenantOnShard(2))
      .add('send', { v: 1 }, { jobId: 'old', timestamp: Date.now() - 5_000 })
    await lanes.queueFor('bulk', tenantOnShard(2)).add('send', { v: 1 }, { jobId: 'c', delay: 60_000 })
    const response = await getQueueStats(
      jsonRequest('/api/admin/queues', { token: TEST_ADMIN_TOKEN }),
      harness.adminDeps(),
    )
    expect(response.status).toBe(200)
    const body = await readJson<Record<string, Record<string, number>>>(response)
    expect(body.critical).toMatchObject({ waiting: 3, active: 0, delayed: 0 })
    expect(body.critical?.oldestWaitingAgeMs).toBeGreaterThanOrEqual(5_000)
    expect(body.bulk).toMatchObject({ waiting: 0, delayed: 1, oldestWaitingAgeMs: 0 })
    expect(body.default).toMatchObject({ waiting: 0, oldestWaitingAgeMs: 0 })
  })

  it("names the lane of a lane job's id in a shard other than the first, instead of replaying it", async () => {
    const id = `m-${randomUUID()}`
    await harness.queues.lanes.queueFor('default', tenantOnShard(2)).add('send', { v: 1 }, { jobId: id })
    const response = await replayDeadLetter(
      jsonRequest(`/api/admin/dlq/${id}/replay`, { method: 'POST', token: TEST_ADMIN_TOKEN, body: {} }),
      id,
      harness.adminDeps(),
    )
    expect(response.status).toBe(404)
    expect((await readJson<{ error: { message: string } }>(response)).error.message).toMatch(
      /job of the default lane, not a dead letter/,
    )
  })
})
