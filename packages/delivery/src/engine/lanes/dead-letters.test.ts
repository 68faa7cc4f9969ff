import type { Database } from '@fairlane/db'
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
