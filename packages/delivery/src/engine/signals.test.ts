import { describe, expect, it } from 'vitest'
import { createDeliverySignals, createSignal } from './signals'

function recordingLogger() {
  const warnings: { details: object; message: string }[] = []
  return {
    warnings,
    logger: { warn: (details: object, message: string) => warnings.push({ details, message }) },
  }
}

describe('delivery signals', () => {
  it('calls every listener with the value, in subscription order', () => {
    const { logger } = recordingLogger()
    const signals = createDeliverySignals({ logger })
    const heard: string[] = []
    signals.slotFreed.subscribe((key) => heard.push(`a:${key}`))
    signals.slotFreed.subscribe((key) => heard.push(`b:${key}`))
    signals.slotFreed.emit('critical:t1')
    expect(heard).toEqual(['a:critical:t1', 'b:critical:t1'])
  })

  it('keeps each signal to its own listeners', () => {
    const { logger } = recordingLogger()
    const signals = createDeliverySignals({ logger })
    const heard: string[] = []
    signals.pacerWake.subscribe(() => heard.push('wake'))
    signals.providerStateChanged.subscribe(({ provider, egress }) => heard.push(`${provider}@${egress}`))
    signals.providerStateChanged.emit({ provider: 'google', egress: '127.0.0.1' })
    expect(heard).toEqual(['google@127.0.0.1'])
    signals.pacerWake.emit()
    expect(heard).toEqual(['google@127.0.0.1', 'wake'])
  })

  it('stops calling a listener once unsubscribed; unsubscribing twice is harmless', () => {
    const { logger } = recordingLogger()
    const signal = createSignal<number>('test', { logger })
    const heard: number[] = []
    const unsubscribe = signal.subscribe((n) => heard.push(n))
    signal.emit(1)
    unsubscribe()
    unsubscribe()
    signal.emit(2)
    expect(heard).toEqual([1])
  })

  it('logs a listener that throws and still calls the others; emit never throws', () => {
    const { logger, warnings } = recordingLogger()
    const signal = createSignal<void>('pacerWake', { logger })
    let called = 0
    signal.subscribe(() => {
      throw new Error('boom')
    })
    signal.subscribe(() => {
      called++
    })
    expect(() => signal.emit()).not.toThrow()
    expect(called).toBe(1)
    expect(warnings).toEqual([
      { details: { err: 'boom', signal: 'pacerWake' }, message: 'signal listener failed' },
    ])
  })

  it('logs a listener whose promise rejects, without an unhandled rejection', async () => {
    const { logger, warnings } = recordingLogger()
    const signal = createSignal<void>('slotFreed', { logger })
    signal.subscribe(async () => {
      throw new Error('later')
    })
    signal.emit()
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings.map((w) => w.details)).toEqual([{ err: 'later', signal: 'slotFreed' }])
  })

  it('refuses a listener past the bound, and has room again after an unsubscribe', () => {
    const { logger } = recordingLogger()
    const signal = createSignal<void>('slotFreed', { logger, maxListeners: 2 })
    const first = signal.subscribe(() => {})
    signal.subscribe(() => {})
    expect(() => signal.subscribe(() => {})).toThrow(/slotFreed has 2 listeners/)
    first()
    expect(() => signal.subscribe(() => {})).not.toThrow()
  })

  it('a listener added or removed during an emit takes effect from the next emit', () => {
    const { logger } = recordingLogger()
    const signal = createSignal<void>('pacerWake', { logger })
    const heard: string[] = []
    let removeSecond = () => {}
    signal.subscribe(() => {
      heard.push('first')
      removeSecond()
      signal.subscribe(() => heard.push('late'))
    })
    removeSecond = signal.subscribe(() => heard.push('second'))
    signal.emit()
    expect(heard).toEqual(['first', 'second'])
  })
})
