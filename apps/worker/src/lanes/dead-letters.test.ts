import { type Job, UnrecoverableError } from 'bullmq'
import { describe, expect, it } from 'vitest'
import { isFinalFailure } from './dead-letters'

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
