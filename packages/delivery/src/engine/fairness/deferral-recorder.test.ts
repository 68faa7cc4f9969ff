import type { DeferralCount } from '@fairlane/db/queries/deferral-counts'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { createDeferralRecorder } from './deferral-recorder'

const logger = pino({ level: 'silent' })
const at = (iso: string) => Date.parse(`${iso}Z`)

describe('createDeferralRecorder', () => {
  it('adds up deferrals per tenant, lane and minute, and writes them in one batch', async () => {
    const written: DeferralCount[][] = []
    let clock = at('2026-12-02T10:00:05')
    const recorder = createDeferralRecorder({
      write: async (counts) => void written.push(counts),
      logger,
      everyMs: 3_600_000,
      now: () => clock,
    })
    recorder.record('t1', 'bulk')
    recorder.record('t1', 'bulk')
    recorder.record('t1', 'critical')
    recorder.record('t2', 'bulk')
    clock = at('2026-12-02T10:01:00')
    recorder.record('t1', 'bulk')
    await recorder.flush()
    expect(written).toHaveLength(1)
    const rows = (written[0] ?? []).map((c) => [c.tenantId, c.lane, c.minute.toISOString(), c.count])
    expect(rows).toEqual([
      ['t1', 'bulk', '2026-12-02T10:00:00.000Z', 2],
      ['t1', 'critical', '2026-12-02T10:00:00.000Z', 1],
      ['t2', 'bulk', '2026-12-02T10:00:00.000Z', 1],
      ['t1', 'bulk', '2026-12-02T10:01:00.000Z', 1],
    ])
    // Nothing new: nothing written.
    await recorder.flush()
    expect(written).toHaveLength(1)
    await recorder.close()
  })

  it('keeps the counts of a failed write for the next flush', async () => {
    const written: DeferralCount[][] = []
    let fail = true
    const recorder = createDeferralRecorder({
      write: async (counts) => {
        if (fail) throw new Error('database away')
        written.push(counts)
      },
      logger,
      everyMs: 3_600_000,
      now: () => at('2026-12-02T10:00:05'),
    })
    recorder.record('t1', 'bulk')
    await recorder.flush()
    recorder.record('t1', 'bulk')
    fail = false
    await recorder.close()
    expect(written.map((batch) => batch.map((c) => c.count))).toEqual([[2]])
  })
})
