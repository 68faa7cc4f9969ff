import { describe, expect, it } from 'vitest'
import { type AttemptResult, decideAfterAttempt } from './attempt-outcome'

const now = new Date('2026-12-04T17:00:00.000Z')
const rules = { retryScheduleMs: [1_000, 2_000], park: { baseMs: 5_000, maxMs: 60_000 }, random: () => 0.5 }
const failure = (kind: Extract<AttemptResult, { ok: false }>['kind']): AttemptResult => ({
  ok: false,
  kind,
  error: kind,
  durationMs: 10,
})

describe('decideAfterAttempt', () => {
  it('delivers on success and unparks an endpoint that was parked', () => {
    const ok: AttemptResult = { ok: true, statusCode: 204, excerpt: '', durationMs: 3 }
    expect(decideAfterAttempt({ attempt: 1, result: ok, parkLevel: 0, now }, rules)).toEqual({
      delivery: { status: 'delivered' },
      endpoint: { health: 'answering', unpark: false, slow: false },
    })
    expect(decideAfterAttempt({ attempt: 3, result: ok, parkLevel: 2, now }, rules).endpoint).toEqual({
      health: 'answering',
      unpark: true,
      slow: false,
    })
  })

  it('delivers a slow 2xx and slows its endpoint; without slowMs no answer is slow', () => {
    const slowOk: AttemptResult = { ok: true, statusCode: 200, excerpt: '', durationMs: 9_500 }
    const slowRules = { ...rules, slowMs: 5_000 }
    expect(decideAfterAttempt({ attempt: 1, result: slowOk, parkLevel: 0, now }, slowRules)).toEqual({
      delivery: { status: 'delivered' },
      endpoint: { health: 'answering', unpark: false, slow: true },
    })
    const atThreshold: AttemptResult = { ...slowOk, durationMs: 5_000 }
    expect(
      decideAfterAttempt({ attempt: 1, result: atThreshold, parkLevel: 1, now }, slowRules).endpoint,
    ).toEqual({ health: 'answering', unpark: true, slow: true })
    const quick: AttemptResult = { ...slowOk, durationMs: 4_999 }
    expect(decideAfterAttempt({ attempt: 1, result: quick, parkLevel: 0, now }, slowRules).endpoint).toEqual({
      health: 'answering',
      unpark: false,
      slow: false,
    })
    expect(decideAfterAttempt({ attempt: 1, result: slowOk, parkLevel: 0, now }, rules).endpoint).toEqual({
      health: 'answering',
      unpark: false,
      slow: false,
    })
  })

  it('retries on the schedule, then fails', () => {
    const first = decideAfterAttempt({ attempt: 1, result: failure('status'), parkLevel: 0, now }, rules)
    expect(first).toEqual({
      delivery: { status: 'pending', nextAttemptAt: new Date(now.getTime() + 1_000) },
      endpoint: { health: 'failing' },
    })
    const last = decideAfterAttempt({ attempt: 3, result: failure('status'), parkLevel: 0, now }, rules)
    expect(last.delivery).toEqual({ status: 'failed' })
  })

  it('parks on timeouts and refused connections, one level further each time', () => {
    const timeout = decideAfterAttempt({ attempt: 1, result: failure('timeout'), parkLevel: 0, now }, rules)
    expect(timeout.endpoint).toEqual({
      health: 'failing',
      park: { level: 1, until: new Date(now.getTime() + 4_500) },
    })
    const refused = decideAfterAttempt(
      { attempt: 1, result: failure('connection'), parkLevel: 2, now },
      rules,
    )
    expect(refused.endpoint).toEqual({
      health: 'failing',
      park: { level: 3, until: new Date(now.getTime() + 18_000) },
    })
  })

  it.each(['tls', 'redirect', 'status', 'body-too-large', 'forbidden-address'] as const)(
    'does not park on an answer it did not like: %s',
    (kind) => {
      expect(
        decideAfterAttempt({ attempt: 1, result: failure(kind), parkLevel: 0, now }, rules).endpoint,
      ).toEqual({
        health: 'failing',
      })
    },
  )
})
