import { describe, expect, it } from 'vitest'
import { discardDeadLetter } from './discard-dead-letter'
import { action, memoryWorld, payload } from './memory-dead-letters'

describe('discard a dead letter', () => {
  it('removes the dead letter with an audit entry naming its message, which stays failed', async () => {
    const world = memoryWorld({
      messages: { 't1/m1': { lane: 'bulk', status: 'failed', generation: 0 } },
      deadLetters: { d1: payload('m1') },
    })
    expect(await discardDeadLetter(action('d1'), world.deps)).toEqual({ id: 'd1', discarded: true })
    expect(world.deadLetters.has('d1')).toBe(false)
    expect(world.state.messages.get('t1/m1')?.status).toBe('failed')
    expect(world.state.audit).toEqual([
      {
        actor: 'admin@example.com',
        action: 'dlq.discard',
        targetType: 'message',
        targetId: 'm1',
        reason: 'smtp fixed',
        details: { dlqJobId: 'd1', queue: 'bulk', tenantId: 't1' },
      },
    ])
  })

  it('discards an unreadable dead letter, the audit entry naming the dead letter', async () => {
    const world = memoryWorld({ deadLetters: { d1: { ok: false, reason: 'queue: invalid' } } })
    await discardDeadLetter(action('d1'), world.deps)
    expect(world.state.audit).toEqual([
      expect.objectContaining({
        targetType: 'dead-letter',
        targetId: 'd1',
        details: { dlqJobId: 'd1', queue: null, tenantId: null },
      }),
    ])
  })

  it('leaves no audit entry when the dead letter cannot be removed', async () => {
    const world = memoryWorld({ deadLetters: { d1: payload('m1') }, removeFails: true })
    await expect(discardDeadLetter(action('d1'), world.deps)).rejects.toThrow('Redis did not answer')
    expect(world.state.audit).toEqual([])
    expect(world.deadLetters.has('d1')).toBe(true)
  })

  it('refuses an unknown id', async () => {
    const world = memoryWorld({})
    await expect(discardDeadLetter(action('d1'), world.deps)).rejects.toMatchObject({ code: 'not_found' })
    expect(world.state.audit).toEqual([])
  })
})
