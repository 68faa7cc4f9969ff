import { describe, expect, it } from 'vitest'
import { createWakeSignal } from './wake-signal'

describe('createWakeSignal', () => {
  it('cuts a sleep short on wake', async () => {
    const signal = createWakeSignal()
    const started = Date.now()
    const sleeping = signal.sleep(10_000)
    signal.wake()
    await sleeping
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it('remembers a wake that came while nobody slept, once', async () => {
    const signal = createWakeSignal()
    signal.wake()
    await signal.sleep(10_000)
    const started = Date.now()
    await signal.sleep(50)
    expect(Date.now() - started).toBeGreaterThanOrEqual(40)
  })

  it('ignores wakes during a backoff, but not an interrupt', async () => {
    const signal = createWakeSignal()
    const started = Date.now()
    const backoff = signal.sleep(100, { ignoreWake: true })
    signal.wake()
    await backoff
    expect(Date.now() - started).toBeGreaterThanOrEqual(90)
    const long = signal.sleep(10_000, { ignoreWake: true })
    signal.interrupt()
    await long
    await signal.sleep(10_000)
  })
})
