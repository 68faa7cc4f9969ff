import { describe, expect, it } from 'vitest'
import type { FailedMessage, FailedMessageStore, RestorableDeadLetterQueue } from './ports'
import { RECENT_FAILURES_MS, type RestoreDeadLettersDeps, restoreDeadLetters } from './restore-dead-letters'

const now = new Date('2026-05-01T10:00:00Z')
const DAY_MS = 86_400_000

/** `count` failed messages, one a second back from `endAgoMs` ago, ids in order of failure. */
function failures(count: number, endAgoMs: number, prefix = 'm'): FailedMessage[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `${prefix}${String(index).padStart(4, '0')}`,
    tenantId: 't1',
    lane: 'bulk' as const,
    generation: 0,
    attempts: 3,
    lastError: '550 no such user',
    failedAt: new Date(now.getTime() - endAgoMs - (count - 1 - index) * 1_000),
  }))
}

/** The failed rows in memory, read as the SQL reads them; records the cut-offs asked for. */
function memoryFailures(rows: FailedMessage[]) {
  const asked: Date[] = []
  const restorable = (since: Date) => rows.filter((row) => row.failedAt >= since)
  const store: FailedMessageStore = {
    async findRestorable({ failedSince, afterId, limit }) {
      asked.push(failedSince)
      return restorable(failedSince)
        .filter((row) => afterId === undefined || row.id > afterId)
        .sort((a, b) => a.id.localeCompare(b.id))
        .slice(0, limit)
    },
    async newestRestorableSince({ failedSince, keep }) {
      const newest = restorable(failedSince).sort((a, b) => b.failedAt.getTime() - a.failedAt.getTime())
      return newest.length > keep ? newest[keep - 1]?.failedAt : undefined
    },
  }
  return { store, asked }
}

/** The dead-letter queue in memory, keyed like BullMQ by message and generation; `failAdd` rejects adds. */
function memoryQueue(input: { complete: boolean; held?: string[]; failAdd?: boolean }) {
  const held = new Set(input.held ?? [])
  let marker: Date | null = input.complete ? now : null
  const queue: RestorableDeadLetterQueue = {
    isComplete: async () => marker !== null,
    async markComplete(at) {
      marker = at
    },
    size: async () => held.size,
    async add(messages) {
      if (input.failAdd) throw new Error('Redis did not answer addBulk')
      for (const message of messages) held.add(`${message.id}:${message.generation}`)
    },
  }
  return { queue, held, marker: () => marker }
}

function deps(failures: FailedMessageStore, queue: RestorableDeadLetterQueue) {
  const logged: string[] = []
  const built: RestoreDeadLettersDeps = {
    failures,
    queue,
    clock: { now: () => now },
    logger: { info: (_, message) => logged.push(message), warn: (_, message) => logged.push(message) },
  }
  return { deps: built, logged }
}

const input = { retentionDays: 30, caps: { maxCount: 1_000, maxAgeDays: 7 } }

describe('restore dead letters', () => {
  it('with the marker gone, restores every failure within the kept days, page by page, and marks the queue complete', async () => {
    const rows = [...failures(1_200, DAY_MS), ...failures(5, 8 * DAY_MS, 'old')]
    const { store, asked } = memoryFailures(rows)
    const { queue, held, marker } = memoryQueue({ complete: false })
    const run = deps(store, queue)
    expect(
      await restoreDeadLetters({ ...input, caps: { maxCount: 5_000, maxAgeDays: 7 } }, run.deps),
    ).toEqual({
      kind: 'restored',
      deadLetters: 1_200,
    })
    expect(held.size).toBe(1_200)
    expect(held.has('old0000:0')).toBe(false)
    expect(asked[0]).toEqual(new Date(now.getTime() - 7 * DAY_MS))
    expect(asked).toHaveLength(3)
    expect(marker()).toEqual(now)
    expect(run.logged).toEqual(['dead letters restored from PostgreSQL'])
  })

  it('with the marker gone, restores only the newest maxCount failures', async () => {
    const { store } = memoryFailures(failures(1_500, DAY_MS))
    const { queue, held } = memoryQueue({ complete: false })
    expect(await restoreDeadLetters(input, deps(store, queue).deps)).toEqual({
      kind: 'restored',
      deadLetters: 1_000,
    })
    expect(held.has('m0499:0')).toBe(false)
    expect(held.has('m0500:0')).toBe(true)
  })

  it('adds each page in failure order, so the count trim (first added, first removed) drops the oldest', async () => {
    // Ids no longer in failure order, as random UUIDs are.
    const rows = failures(6, DAY_MS).map((row, index) => ({ ...row, id: `m${(5 * index) % 6}` }))
    const { store } = memoryFailures(rows)
    const added: string[] = []
    const { queue } = memoryQueue({ complete: false })
    const recording: RestorableDeadLetterQueue = {
      ...queue,
      async add(messages) {
        added.push(...messages.map((message) => message.id))
        await queue.add(messages)
      },
    }
    await restoreDeadLetters(input, deps(store, recording).deps)
    expect(added).toEqual(rows.map((row) => row.id))
  })

  it('looks back the retention when it is shorter than the age cap', async () => {
    const { store, asked } = memoryFailures([])
    const { queue, marker } = memoryQueue({ complete: false })
    const run = deps(store, queue)
    await restoreDeadLetters({ ...input, retentionDays: 2 }, run.deps)
    expect(asked).toEqual([new Date(now.getTime() - 2 * DAY_MS)])
    expect(marker()).toEqual(now)
    expect(run.logged).toEqual(['dead-letter queue marked complete (nothing to restore)'])
  })

  it('with the marker in place, re-adds only the last minute’s failures, within the room under the cap', async () => {
    const rows = [...failures(3, 0, 'new'), ...failures(4, 10 * 60_000)]
    const { store, asked } = memoryFailures(rows)
    const { queue, held } = memoryQueue({ complete: true, held: ['x:0', 'y:0'] })
    const outcome = await restoreDeadLetters(
      { ...input, caps: { maxCount: 4, maxAgeDays: 7 } },
      deps(store, queue).deps,
    )
    expect(outcome).toEqual({ kind: 'intact', checked: 2 })
    expect(asked[0]).toEqual(new Date(now.getTime() - RECENT_FAILURES_MS))
    expect([...held]).toEqual(['x:0', 'y:0', 'new0000:0', 'new0001:0'])
  })

  it('with the marker in place and the queue at its cap, looks at nothing', async () => {
    const { store, asked } = memoryFailures(failures(3, 0))
    const { queue } = memoryQueue({ complete: true, held: ['a:0', 'b:0'] })
    const outcome = await restoreDeadLetters(
      { ...input, caps: { maxCount: 2, maxAgeDays: 7 } },
      deps(store, queue).deps,
    )
    expect(outcome).toEqual({ kind: 'full' })
    expect(asked).toEqual([])
  })

  it('leaves the marker unwritten when adding fails, so the next run restores again', async () => {
    const { store } = memoryFailures(failures(3, DAY_MS))
    const { queue, marker } = memoryQueue({ complete: false, failAdd: true })
    await expect(restoreDeadLetters(input, deps(store, queue).deps)).rejects.toThrow(
      'Redis did not answer addBulk',
    )
    expect(marker()).toBeNull()
  })
})
