import { describe, expect, it } from 'vitest'
import { action, type Message, memoryWorld, payload } from './memory-dead-letters'
import type { DeadLetterReading } from './ports'
import { replayDeadLetter } from './replay-dead-letter'

describe('replay a dead letter', () => {
  it('requeues the failed message under the next generation, publishes it, audits it, then removes the dead letter', async () => {
    const world = memoryWorld({
      messages: { 't1/m1': { lane: 'bulk', status: 'failed', generation: 2 } },
      deadLetters: { d1: payload('m1') },
    })
    expect(await replayDeadLetter(action('d1'), world.deps)).toEqual({
      id: 'd1',
      messageId: 'm1',
      status: 'queued',
      lane: 'bulk',
      generation: 3,
    })
    expect(world.state.messages.get('t1/m1')).toMatchObject({ status: 'queued', generation: 3 })
    expect(world.state.published).toEqual([{ messageId: 'm1', lane: 'bulk', generation: 3 }])
    expect(world.state.audit).toEqual([
      {
        actor: 'admin@example.com',
        action: 'dlq.replay',
        targetType: 'message',
        targetId: 'm1',
        reason: 'smtp fixed',
        details: { dlqJobId: 'd1', queue: 'bulk', tenantId: 't1', generation: 3 },
      },
    ])
    expect(world.deadLetters.has('d1')).toBe(false)
  })

  it('stays replayed when the dead letter cannot be removed after the commit, and refuses a second replay', async () => {
    const world = memoryWorld({
      messages: { 't1/m1': { lane: 'bulk', status: 'failed', generation: 0 } },
      deadLetters: { d1: payload('m1') },
      removeFails: true,
    })
    await expect(replayDeadLetter(action('d1'), world.deps)).resolves.toMatchObject({ generation: 1 })
    expect(world.warnings).toEqual(['replayed, but the dead letter could not be removed'])
    expect(world.deadLetters.has('d1')).toBe(true)
    await expect(replayDeadLetter(action('d1'), world.deps)).rejects.toMatchObject({
      code: 'conflict',
      message: 'Message m1 is queued; only failed messages can be replayed',
    })
    expect(world.state.published).toHaveLength(1)
    expect(world.state.audit).toHaveLength(1)
  })

  it.each([
    [
      'an unreadable payload',
      { deadLetters: { d1: { ok: false, reason: 'queue: invalid' } as DeadLetterReading } },
      { code: 'conflict', message: expect.stringMatching(/payload is unreadable \(queue: invalid\)/) },
    ],
    [
      'a dead letter of another lane than its message’s',
      {
        messages: { 't1/m1': { lane: 'critical', status: 'failed', generation: 0 } as Message },
        deadLetters: { d1: payload('m1', 'bulk') },
      },
      {
        code: 'conflict',
        message: expect.stringMatching(/from the bulk lane, but message m1 belongs to the critical/),
      },
    ],
    [
      'a message that no longer exists',
      { deadLetters: { d1: payload('m1') } },
      { code: 'not_found', message: 'Message m1 of dead letter d1 no longer exists' },
    ],
    [
      'a message whose body the retention removed',
      {
        messages: {
          't1/m1': {
            lane: 'bulk',
            status: 'failed',
            generation: 0,
            bodyRemovedAt: new Date('2026-04-01T00:00:00Z'),
          } as Message,
        },
        deadLetters: { d1: payload('m1') },
      },
      {
        code: 'conflict',
        message: expect.stringMatching(/body was removed by the retention on 2026-04-01T00:00:00.000Z/),
      },
    ],
    [
      'a message that is not failed',
      {
        messages: { 't1/m1': { lane: 'bulk', status: 'sent', generation: 0 } as Message },
        deadLetters: { d1: payload('m1') },
      },
      { code: 'conflict', message: 'Message m1 is sent; only failed messages can be replayed' },
    ],
    ['an unknown id', {}, { code: 'not_found' }],
  ])('refuses %s, changing nothing', async (_, setup, refusal) => {
    const world = memoryWorld(setup)
    const before = [...world.state.messages.values()].map((message) => ({ ...message }))
    await expect(replayDeadLetter(action('d1'), world.deps)).rejects.toMatchObject(refusal)
    expect([...world.state.messages.values()]).toEqual(before)
    expect(world.state.published).toEqual([])
    expect(world.state.audit).toEqual([])
    expect(world.deadLetters.has('d1')).toBe('deadLetters' in setup)
  })
})
