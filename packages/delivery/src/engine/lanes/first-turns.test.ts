import { describe, expect, it } from 'vitest'
import { createFirstTurns } from './first-turns'
import { createSlotMailer } from './smtp-mailer'

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

describe('createSlotMailer with first turns', () => {
  const mail = (id: string) => ({
    from: 'a@example.com',
    to: 'b@example.com',
    envelope: { from: 'bounce@example.com', to: 'b@example.com' },
    subject: id,
    text: 't',
    messageId: `<${id}@y>`,
    headers: {},
  })

  it("holds a batch's next message and an old flow's reserve while a first turn is in progress, not the first turn's own", async () => {
    const turns = createFirstTurns({ maxPauseMs: 10_000 })
    const sent: string[] = []
    const mailer = createSlotMailer(
      async (outgoing) => {
        sent.push(String(outgoing.subject))
        return {}
      },
      { deadlineMs: 5_000, connections: 4, firstTurns: turns },
    )
    const batch = await mailer.hold?.(undefined, { ahead: false })
    if (!batch) throw new Error('the slot mailer holds connections')
    await batch.send(mail('batch-1'))
    const leave = turns.enter()
    const next = batch.send(mail('batch-2'))
    const single = mailer.reserve(undefined, { ahead: false }).then((slot) => slot.send(mail('single')))
    const first = await mailer.reserve(undefined, { ahead: true })
    await first.send(mail('first-turn'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(sent).toEqual(['batch-1', 'first-turn'])
    leave()
    await Promise.all([next, single])
    batch.release()
    expect(sent.slice(2).sort()).toEqual(['batch-2', 'single'])
  })
})
