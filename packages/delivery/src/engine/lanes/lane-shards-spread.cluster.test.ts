import { LANES } from '@fairlane/core'
import { allLaneQueues, createLaneQueues, createProducerConnection, type LaneQueues } from '@fairlane/queue'
import {
  connectTestRedis,
  controlRedisCluster,
  setupTestEnvironment,
  testRedisTarget,
} from '@fairlane/testing'
import { afterAll, expect, inject, it } from 'vitest'

/**
 * LANE_SHARDS=3 on the local three-master cluster: the three shards of every lane live on three
 * different masters, read from where their keys are (a job added to each shard, then the master
 * serving each job key's slot). Runs only in the `cluster` project.
 */
const test = setupTestEnvironment('shard-spread')
const SHARDS = 3
let queues: LaneQueues | undefined
let connection: ReturnType<typeof createProducerConnection> | undefined

afterAll(async () => {
  if (queues) await Promise.all(allLaneQueues(queues).map((queue) => queue.close()))
  connection?.disconnect()
})

it('puts the three shards of each lane on three different masters', async () => {
  expect(test.redisCluster).toBe(true)
  const logger = {
    error: (fields: Record<string, unknown>, message: string) => console.error(message, fields),
  }
  connection = createProducerConnection(testRedisTarget(test), 'shard-spread', logger)
  queues = createLaneQueues(connection, { prefix: test.queuePrefix, shards: SHARDS }, logger)
  const masters = await controlRedisCluster(inject('redisClusterPorts')).masters()
  expect(masters).toHaveLength(3)
  const redis = connectTestRedis(test)
  try {
    for (const lane of LANES) {
      const ports: number[] = []
      for (const queue of queues.shardsOf(lane)) {
        const job = await queue.add('spread', { lane })
        // BullMQ's key of the job itself: `<prefix>:<queue>:<id>`, present now on the master of its slot.
        const key = `${queue.opts.prefix}:${queue.name}:${job.id}`
        expect(await redis.exists(key)).toBe(1)
        const slot = Number(await redis.cluster('KEYSLOT', key))
        const master = masters.find((candidate) =>
          candidate.slots.some(([from, to]) => slot >= from && slot <= to),
        )
        if (!master) throw new Error(`no master serves slot ${slot} (${key})`)
        ports.push(master.port)
      }
      expect(ports, `masters of lane ${lane}'s shards`).toHaveLength(SHARDS)
      expect(new Set(ports).size, `masters of lane ${lane}'s shards: ${ports.join(', ')}`).toBe(SHARDS)
    }
  } finally {
    redis.disconnect()
  }
})
