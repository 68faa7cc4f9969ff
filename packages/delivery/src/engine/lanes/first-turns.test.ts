import { describe, expect, it } from 'vitest'
import { createFirstTurns } from './first-turns'

describe('createFirstTurns', () => {
  it('lets an old flow through at once while no first turn is in progress', async () => {
    const turns = createFirstTurns({ maxPauseMs: 10_000 })
    await turns.pause()
    const leave = turns.enter()
    leave()
    await turns.pause()
    expect(turns.active).toBe(0)
  })

  it('holds old flows until the last first turn in progress ends', async () => {
    const turns = createFirstTurns({ maxPauseMs: 10_000 })
    const first = turns.enter()
    const second = turns.enter()
    let resumed = false
    const held = turns.pause().then(() => {
      resumed = true
    })
    first()
    first()
    await Promise.resolve()
    expect(resumed).toBe(false)
    expect(turns.active).toBe(1)
    second()
    await held
    expect(resumed).toBe(true)
  })

  it('holds an old flow no longer than maxPauseMs however long a first turn takes', async () => {
    const turns = createFirstTurns({ maxPauseMs: 20 })
    const leave = turns.enter()
    const startedAtMs = performance.now()
    await turns.pause()
    expect(performance.now() - startedAtMs).toBeGreaterThanOrEqual(15)
    expect(turns.active).toBe(1)
    leave()
  })

  it('refuses a pause that is not positive', () => {
    expect(() => createFirstTurns({ maxPauseMs: 0 })).toThrow(/maxPauseMs/)
  })
})
