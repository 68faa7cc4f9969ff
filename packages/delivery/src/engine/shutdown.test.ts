import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { installShutdown } from './shutdown'

const silent = pino({ level: 'silent' })

describe('installShutdown', () => {
  it('runs the steps in order, once, and exits 0', async () => {
    const order: string[] = []
    const exits: number[] = []
    const { shutdown } = installShutdown({
      logger: silent,
      forceExitMs: 5_000,
      exit: (code) => exits.push(code),
      steps: () => [
        { name: 'workers', run: async () => void order.push('workers') },
        { name: 'database', run: () => void order.push('database') },
      ],
    })
    await Promise.all([shutdown('SIGTERM'), shutdown('SIGINT')])
    expect(order).toEqual(['workers', 'database'])
    expect(exits).toEqual([0])
  })

  it('keeps closing after a failing step and exits 1', async () => {
    const order: string[] = []
    const exits: number[] = []
    const { shutdown } = installShutdown({
      logger: silent,
      forceExitMs: 5_000,
      exit: (code) => exits.push(code),
      steps: () => [
        { name: 'workers', run: () => Promise.reject(new Error('boom')) },
        { name: 'database', run: () => void order.push('database') },
      ],
    })
    await shutdown('SIGTERM')
    expect(order).toEqual(['database'])
    expect(exits).toEqual([1])
  })

  it('forces exit 1 when a step outlives the timer', async () => {
    const exits: number[] = []
    let release: () => void = () => {}
    const { shutdown } = installShutdown({
      logger: silent,
      forceExitMs: 20,
      exit: (code) => {
        exits.push(code)
        release()
      },
      steps: () => [{ name: 'stuck', run: () => new Promise<void>((resolve) => (release = resolve)) }],
    })
    await shutdown('SIGTERM')
    expect(exits[0]).toBe(1)
  })
})
