import type { Cluster, Redis } from 'ioredis'
import type { RedisClient } from './connections'

/**
 * Commands that act on one server, not on a key (SCAN, FLUSHALL, INFO, CONFIG): on a cluster they must
 * run on every master, since each holds only its own slots. The cluster's node list is known once it
 * is ready (it learnt the slots), so this waits for that.
 */
export async function masterNodes(client: RedisClient): Promise<Redis[]> {
  if (!client.isCluster) return [client as Redis]
  if (client.status === 'wait') await client.connect()
  else if (client.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      const onReady = () => {
        client.off('error', onError)
        resolve()
      }
      const onError = (error: Error) => {
        client.off('ready', onReady)
        reject(error)
      }
      client.once('ready', onReady)
      client.once('error', onError)
    })
  }
  return (client as Cluster).nodes('master')
}

/** Deletes (UNLINK) every key matching `pattern` on every master; returns how many went. */
export async function deleteKeysMatching(client: RedisClient, pattern: string): Promise<number> {
  let deleted = 0
  for (const node of await masterNodes(client)) {
    let cursor = '0'
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000)
      cursor = next
      // Keys of one SCAN batch may sit in different slots: one UNLINK each, pipelined.
      if (keys.length > 0) {
        const pipeline = node.pipeline()
        for (const key of keys) pipeline.unlink(key)
        const replies = (await pipeline.exec()) ?? []
        for (const [error, count] of replies) {
          if (error) throw error
          deleted += Number(count)
        }
      }
    } while (cursor !== '0')
  }
  return deleted
}

/** FLUSHALL on every master (a cluster's replicas follow their master). */
export async function flushAllNodes(client: RedisClient): Promise<void> {
  await Promise.all((await masterNodes(client)).map((node) => node.flushall()))
}
