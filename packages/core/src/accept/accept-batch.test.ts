import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { acceptBatch, MAX_BATCH_MESSAGES } from './accept-batch'
import type { AcceptDeps } from './ports'

/** The call's shape is refused before any dependency is asked anything: these deps would throw if used. */
const untouched = new Proxy({} as AcceptDeps, {
  get: (_, name) => {
    throw new Error(`acceptBatch used ${String(name)} for a call it should have refused`)
  },
})

async function refusal(body: unknown): Promise<AppError> {
  try {
    await acceptBatch(
      { tenantId: 't', body, idempotencyKey: null, defaultSender: { from: null, replyTo: null } },
      untouched,
    )
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error('not refused')
}

describe('acceptBatch, the call itself', () => {
  it(`refuses more than ${MAX_BATCH_MESSAGES} items, naming messages`, async () => {
    const messages = Array.from({ length: MAX_BATCH_MESSAGES + 1 }, () => ({
      to: 'a@x.test',
      subject: 's',
      text: 't',
    }))
    const error = await refusal({ messages })
    expect(error.code).toBe('validation_failed')
    expect(error.details?.map((issue) => issue.path)).toEqual(['messages'])
    expect(error.details?.[0]?.message).toContain('501')
  })

  it('refuses a body without a messages array, an empty one, and unknown fields', async () => {
    for (const body of [null, [], {}, { messages: 'x' }, { messages: [] }]) {
      expect((await refusal(body)).details?.map((issue) => issue.path)).toEqual(['messages'])
    }
    expect((await refusal({ messages: [{}], extra: 1 })).details?.map((issue) => issue.path)).toEqual([
      'extra',
    ])
  })
})
