import type { Job } from 'bullmq'
import { UnrecoverableError } from 'bullmq'
import { describe, expect, it } from 'vitest'
import {
  CAMPAIGN_DUE_JOB,
  DISPATCH_SCHEDULER_ID,
  SYSTEM_JOB_IDS,
  SYSTEM_JOB_PAYLOADS,
  type SystemJobCatalog,
  systemHandlers,
  systemSchedules,
} from './system-jobs'

function catalogRecording(seen: unknown[]): SystemJobCatalog {
  const handle = async (payload: unknown) => {
    seen.push(payload)
    return 'done'
  }
  return {
    'campaign-dispatch': {
      payload: SYSTEM_JOB_PAYLOADS['campaign-dispatch'],
      schedule: { everyMs: 1_000 },
      handle,
    },
    'campaign-due': { payload: SYSTEM_JOB_PAYLOADS['campaign-due'], handle },
    'dead-letter-restore': {
      payload: SYSTEM_JOB_PAYLOADS['dead-letter-restore'],
      schedule: { everyMs: 10_000 },
      handle,
    },
    'nightly-cleanup': {
      payload: SYSTEM_JOB_PAYLOADS['nightly-cleanup'],
      schedule: { pattern: '15 3 * * *', timeZone: 'Europe/Paris' },
      handle,
    },
    'tenant-daily-rollup': { payload: SYSTEM_JOB_PAYLOADS['tenant-daily-rollup'], handle },
    'domain-checks': { payload: SYSTEM_JOB_PAYLOADS['domain-checks'], schedule: { everyMs: 60_000 }, handle },
    'webhook-endpoint-health': {
      payload: SYSTEM_JOB_PAYLOADS['webhook-endpoint-health'],
      schedule: { everyMs: 600_000 },
      handle,
    },
    'reputation-check': {
      payload: SYSTEM_JOB_PAYLOADS['reputation-check'],
      schedule: { everyMs: 60_000 },
      handle,
    },
  }
}

const jobOf = (name: string, data: unknown) => ({ name, id: '1', data }) as unknown as Job

describe('system job catalog', () => {
  it('schedules exactly the jobs that have a schedule, under their ids', () => {
    expect(systemSchedules(catalogRecording([]))).toEqual([
      { id: 'campaign-dispatch', everyMs: 1_000 },
      { id: 'dead-letter-restore', everyMs: 10_000 },
      { id: 'nightly-cleanup', pattern: '15 3 * * *', timeZone: 'Europe/Paris' },
      { id: 'domain-checks', everyMs: 60_000 },
      { id: 'webhook-endpoint-health', everyMs: 600_000 },
      { id: 'reputation-check', everyMs: 60_000 },
    ])
  })

  it('hands each handler its parsed payload; data without a version (a scheduler job) reads as v1', async () => {
    const seen: unknown[] = []
    const handlers = systemHandlers(catalogRecording(seen))
    expect(Object.keys(handlers).sort()).toEqual([...SYSTEM_JOB_IDS].sort())
    expect(await handlers[DISPATCH_SCHEDULER_ID](jobOf(DISPATCH_SCHEDULER_ID, {}))).toBe('done')
    await handlers[CAMPAIGN_DUE_JOB](jobOf(CAMPAIGN_DUE_JOB, { campaignId: 'c1' }))
    await handlers[CAMPAIGN_DUE_JOB](jobOf(CAMPAIGN_DUE_JOB, { v: 1, campaignId: 'c2' }))
    expect(seen).toEqual([{ v: 1 }, { v: 1, campaignId: 'c1' }, { v: 1, campaignId: 'c2' }])
  })

  it('fails a payload it cannot read for good, without calling the handler', async () => {
    const seen: unknown[] = []
    const handlers = systemHandlers(catalogRecording(seen))
    await expect(
      handlers[CAMPAIGN_DUE_JOB](jobOf(CAMPAIGN_DUE_JOB, { v: 2, campaignId: 'c1' })),
    ).rejects.toBeInstanceOf(UnrecoverableError)
    await expect(handlers[CAMPAIGN_DUE_JOB](jobOf(CAMPAIGN_DUE_JOB, { v: 1 }))).rejects.toBeInstanceOf(
      UnrecoverableError,
    )
    expect(seen).toEqual([])
  })
})
