import type { Database } from '@fairlane/db'
import { SEND_BATCH_JOB_NAME, type SendLaneJob, sendJobId } from '@fairlane/queue'
import { type Job, UnrecoverableError } from 'bullmq'
import pino from 'pino'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { createWorkerMetrics } from '../metrics'
import { createDeadLetters, isFinalFailure } from './dead-letters'

const job = (attemptsMade: number, attempts?: number) =>
  ({ attemptsMade, opts: { attempts } }) as unknown as Job

describe('isFinalFailure', () => {
  it('catches UnrecoverableError at attempt 1, where attemptsMade >= attempts does not', () => {
    expect(isFinalFailure(job(1, 5), new UnrecoverableError('550'))).toBe(true)
    const foreign = Object.assign(new Error('550'), { name: 'UnrecoverableError' })
    expect(isFinalFailure(job(1, 5), foreign)).toBe(true)
  })

  it('is final when out of attempts, and not before', () => {
    expect(isFinalFailure(job(4, 5), new Error('451'))).toBe(false)
    expect(isFinalFailure(job(5, 5), new Error('451'))).toBe(true)
    expect(isFinalFailure(job(1), new Error('451'))).toBe(true)
  })
})

describe('createDeadLetters', () => {
  it('never marks failed nor dead-letters a job holding a send the server accepted', async () => {
    const added: unknown[] = []
    const logged: string[] = []
    const untouchable = new Proxy(
      {},
      {
        get() {
          throw new Error('the database must not be touched for an accepted send')
        },
      },
    )
    const registry = new Registry()
    const deadLetters = createDeadLetters({
      db: untouchable as Database,
      queue: {
        add: async (...args: unknown[]) => {
          added.push(args)
          return undefined as never
        },
      },
      logger: pino({ level: 'info' }, { write: (line: string) => logged.push(line) }),
      metrics: createWorkerMetrics(registry),
    })
    const accepted = {
      id: 'm-0b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
      attemptsMade: 15,
      opts: { attempts: 15 },
      data: {
        v: 1,
        messageId: '0b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
        tenantId: '1b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
        acceptedLockToken: '2b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
      },
    } as unknown as Job
    deadLetters.onFailed('critical', accepted, new Error('job stalled more than allowable limit'))
    await deadLetters.drain()
    expect(added).toEqual([])
    expect(logged.join('')).toContain('a job holding an accepted send failed; not dead-lettered')
    expect(await registry.metrics()).toMatch(/fairlane_dead_lettered_total\{lane="critical"\} 0/)
  })
})

describe('a batch job that failed for good', () => {
  const tenantId = '1b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11'
  const [waiting, done, accepted] = [
    '3b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
    '4b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
    '5b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
  ] as const
  const lockToken = '2b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11'

  it('hands each unfinished message to its own job, and its kept hand-offs as they were; none is dead-lettered for its batch', async () => {
    const dead: unknown[] = []
    const added: Array<{ lane: string; jobs: readonly SendLaneJob[] }> = []
    const asked: string[][] = []
    const deadLetters = createDeadLetters({
      db: {} as Database,
      queue: {
        add: async (...args: unknown[]) => {
          dead.push(args)
          return undefined as never
        },
      },
      logger: pino({ level: 'silent' }),
      metrics: createWorkerMetrics(new Registry()),
      batches: {
        // The done one is sent already; the waiting one is still queued, at generation 3.
        unfinished: async ({ messageIds }) => {
          asked.push([...messageIds])
          return [{ messageId: waiting, tenantId, generation: 3 }]
        },
        handOff: async (lane, jobs) => {
          added.push({ lane, jobs })
        },
      },
    })
    const batch = {
      id: `b-${waiting}`,
      name: SEND_BATCH_JOB_NAME,
      attemptsMade: 15,
      opts: { attempts: 15 },
      data: {
        v: 1,
        tenantId,
        lane: 'bulk',
        messageIds: [waiting, done],
        handOffs: [{ messageId: accepted, generation: 0, delayMs: 5_000, acceptedLockToken: lockToken }],
      },
    } as unknown as Job
    deadLetters.onFailed('bulk', batch, new Error('connect ECONNREFUSED 127.0.0.1:5432'))
    await deadLetters.drain()
    expect(asked).toEqual([[waiting, done]])
    expect(added).toHaveLength(1)
    expect(added[0]?.lane).toBe('bulk')
    expect(added[0]?.jobs.map((job) => [job.opts.jobId, job.data])).toEqual([
      [sendJobId(accepted, 0), { v: 1, messageId: accepted, tenantId, acceptedLockToken: lockToken }],
      [sendJobId(waiting, 3), { v: 1, messageId: waiting, tenantId }],
    ])
    expect(dead).toEqual([])
  })
})
