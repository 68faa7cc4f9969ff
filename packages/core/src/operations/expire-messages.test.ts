import { describe, expect, it } from 'vitest'
import {
  expireMessages,
  type MessageRetentionStore,
  messageRetentionBounds,
  type RetentionBatch,
} from './expire-messages'

const utc = (iso: string) => new Date(`${iso}Z`)

describe('messageRetentionBounds', () => {
  it('deletes nothing before the rollup has run: no day would keep the messages', () => {
    expect(
      messageRetentionBounds({
        now: utc('2026-12-05T03:15:00'),
        retentionDays: 90,
        rollupCursor: null,
        timeZone: 'UTC',
      }),
    ).toBeNull()
  })

  it('goes back 90 days when the rollup is current (cursor on yesterday)', () => {
    expect(
      messageRetentionBounds({
        now: utc('2026-12-05T03:15:00'),
        retentionDays: 90,
        rollupCursor: utc('2026-12-04T00:00:00'),
        timeZone: 'UTC',
      }),
    ).toEqual({ createdBefore: utc('2026-09-06T03:15:00'), finishedBefore: utc('2026-12-05T00:00:00') })
  })

  it('stops at the rollup when it stalled longer ago than the retention', () => {
    expect(
      messageRetentionBounds({
        now: utc('2026-12-05T03:15:00'),
        retentionDays: 1,
        rollupCursor: utc('2026-11-20T00:00:00'),
        timeZone: 'UTC',
      }),
    ).toEqual({ createdBefore: utc('2026-11-21T00:00:00'), finishedBefore: utc('2026-11-21T00:00:00') })
  })

  it("ends the rolled day at midnight of the rollup's zone", () => {
    // The cursor is 3 Dec 00:00 in Berlin (UTC+1): the rollup has counted up to 4 Dec 00:00 there.
    const bounds = messageRetentionBounds({
      now: utc('2026-12-05T03:15:00'),
      retentionDays: 1,
      rollupCursor: utc('2026-12-02T23:00:00'),
      timeZone: 'Europe/Berlin',
    })
    expect(bounds?.finishedBefore).toEqual(utc('2026-12-03T23:00:00'))
    expect(bounds?.createdBefore).toEqual(utc('2026-12-03T23:00:00'))
  })
})

describe('expireMessages', () => {
  function storeOf(scans: number[], cursor: Date | null) {
    const batches: RetentionBatch[] = []
    const store: MessageRetentionStore = {
      readRollupCursor: async () => cursor,
      deleteBatch: async (batch) => {
        batches.push(batch)
        const scanned = scans[batches.length - 1] ?? 0
        // Every other message is still in flight: scanned, passed over, not deleted.
        return {
          scanned,
          deleted: Math.floor(scanned / 2),
          last: scanned > 0 ? { createdAt: `key-${batches.length}`, id: `id-${batches.length}` } : null,
        }
      },
    }
    return { store, batches }
  }
  const deps = {
    clock: { now: () => utc('2026-12-05T03:15:00') },
    retentionDays: 90,
    timeZone: 'UTC',
    batchSize: 4,
  }

  it('walks in key order until a batch comes back short, each batch starting after the last', async () => {
    const { store, batches } = storeOf([4, 4, 1], utc('2026-12-04T00:00:00'))
    expect(await expireMessages({ ...deps, store })).toEqual({ deleted: 4, batches: 3 })
    expect(batches.map((batch) => batch.after)).toEqual([
      null,
      { createdAt: 'key-1', id: 'id-1' },
      { createdAt: 'key-2', id: 'id-2' },
    ])
    expect(batches.every((batch) => batch.limit === 4)).toBe(true)
    expect(batches[0]?.createdBefore).toEqual(utc('2026-09-06T03:15:00'))
  })

  it('touches nothing without a rollup cursor', async () => {
    const { store, batches } = storeOf([4], null)
    expect(await expireMessages({ ...deps, store })).toEqual({ deleted: 0, batches: 0 })
    expect(batches).toEqual([])
  })
})
