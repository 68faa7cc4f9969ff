import { describe, expect, it } from 'vitest'
import { createConnectionPlaces } from './connection-places'

/** Takes a place and records when it was granted, by name. */
function taker(places: ReturnType<typeof createConnectionPlaces>, order: string[]) {
  return (name: string, ahead: boolean, signal?: AbortSignal) =>
    places.take({ ahead, ...(signal ? { signal } : {}) }).then((giveBack) => {
      order.push(name)
      return giveBack
    })
}

describe('createConnectionPlaces', () => {
  it('grants at once while places are free, then makes the rest wait', async () => {
    const places = createConnectionPlaces(2)
    const order: string[] = []
    const take = taker(places, order)
    await take('a', false)
    await take('b', false)
    const waiting = take('c', false)
    await Promise.resolve()
    expect(order).toEqual(['a', 'b'])
    expect(places.held).toBe(2)
    expect(places.waiting).toEqual({ ahead: 0, resumed: 0, behind: 1 })
    void waiting
  })

  it('serves the ahead line before the waiters behind, first in first out within each', async () => {
    const places = createConnectionPlaces(1)
    const order: string[] = []
    const take = taker(places, order)
    const first = await take('holder', false)
    const pending = [take('old-1', false), take('old-2', false), take('new-1', true), take('new-2', true)]
    first()
    const next = await pending[2]
    next?.()
    ;(await pending[3])?.()
    ;(await pending[0])?.()
    ;(await pending[1])?.()
    expect(order).toEqual(['holder', 'new-1', 'new-2', 'old-1', 'old-2'])
    expect(places.held).toBe(0)
  })

  it('gives a place back once however often its give-back is called', async () => {
    const places = createConnectionPlaces(1)
    const giveBack = await places.take({ ahead: false })
    giveBack()
    giveBack()
    expect(places.held).toBe(0)
    const again = await places.take({ ahead: false })
    expect(places.held).toBe(1)
    again()
  })

  it('takes a waiter whose signal aborts out of its line, rejected, and hands the place to the next', async () => {
    const places = createConnectionPlaces(1)
    const order: string[] = []
    const take = taker(places, order)
    const holder = await take('holder', false)
    const controller = new AbortController()
    const abandoned = take('abandoned', true, controller.signal)
    const patient = take('patient', false)
    controller.abort(new Error('deadline'))
    await expect(abandoned).rejects.toThrow('deadline')
    expect(places.waiting).toEqual({ ahead: 0, resumed: 0, behind: 1 })
    holder()
    ;(await patient)()
    expect(order).toEqual(['holder', 'patient'])
  })

  it('hands a held place to a waiter ahead and resumes the yielder before the waiters behind', async () => {
    const places = createConnectionPlaces(1)
    const order: string[] = []
    const take = taker(places, order)
    const batch = await take('batch', false)
    const later = take('later-batch', false)
    const newcomer = take('newcomer', true)
    await Promise.resolve()
    const resumed = places.yieldToAhead(batch).then((giveBack) => {
      order.push('batch-again')
      return giveBack
    })
    ;(await newcomer)()
    ;(await resumed)()
    ;(await later)()
    expect(order).toEqual(['batch', 'newcomer', 'batch-again', 'later-batch'])
    expect(places.held).toBe(0)
  })

  it('keeps the place when nobody waits ahead (the waiters behind do not count)', async () => {
    const places = createConnectionPlaces(1)
    const held = await places.take({ ahead: false })
    const behind = places.take({ ahead: false })
    expect(await places.yieldToAhead(held)).toBe(held)
    expect(places.held).toBe(1)
    expect(places.waiting).toEqual({ ahead: 0, resumed: 0, behind: 1 })
    held()
    ;(await behind)()
    expect(places.held).toBe(0)
  })

  it('skips a newcomer that left its line, and a yielder whose signal aborts loses its place to the next', async () => {
    const places = createConnectionPlaces(1)
    const order: string[] = []
    const take = taker(places, order)
    const left = new AbortController()
    const batch = await take('batch', false)
    const gone = take('gone', true, left.signal)
    left.abort(new Error('gone'))
    await expect(gone).rejects.toThrow('gone')
    expect(await places.yieldToAhead(batch)).toBe(batch)

    const newcomer = take('newcomer', true)
    const impatient = new AbortController()
    const yielded = places.yieldToAhead(batch, impatient.signal)
    const behind = take('behind', false)
    const holding = await newcomer
    impatient.abort(new Error('deadline'))
    await expect(yielded).rejects.toThrow('deadline')
    holding()
    ;(await behind)()
    expect(order).toEqual(['batch', 'newcomer', 'behind'])
    expect(places.held).toBe(0)
  })

  it('refuses a taker whose signal has already aborted, and a count that is not a whole number ≥ 1', async () => {
    const places = createConnectionPlaces(1)
    await expect(places.take({ ahead: false, signal: AbortSignal.abort(new Error('late')) })).rejects.toThrow(
      'late',
    )
    expect(places.held).toBe(0)
    expect(() => createConnectionPlaces(0)).toThrow(/whole number/)
    expect(() => createConnectionPlaces(1.5)).toThrow(/whole number/)
  })
})
