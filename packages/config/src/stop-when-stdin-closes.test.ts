import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { stopWhenStdinCloses } from './stop-when-stdin-closes'

function watch(enabled: boolean) {
  const input = new PassThrough()
  const output = new PassThrough()
  let stops = 0
  stopWhenStdinCloses({ STOP_WHEN_STDIN_CLOSES: enabled }, { input, outputs: [output], stop: () => stops++ })
  return { input, output, stops: () => stops }
}

const ended = (stream: PassThrough) => new Promise((resolve) => stream.once('close', resolve))

describe('stopWhenStdinCloses', () => {
  it('stops once when standard input ends, not before', async () => {
    const { input, stops } = watch(true)
    input.write('anything the launcher might write is ignored\n')
    await new Promise((resolve) => setImmediate(resolve))
    expect(stops()).toBe(0)
    const closed = ended(input)
    input.end()
    await closed
    expect(stops()).toBe(1)
  })

  it('treats a broken input pipe as closed', async () => {
    const { input, stops } = watch(true)
    const closed = ended(input)
    input.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))
    await closed
    expect(stops()).toBe(1)
  })

  it('drops EPIPE on its outputs (the reader is gone) but lets other errors through', () => {
    const { output } = watch(true)
    expect(() =>
      output.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })),
    ).not.toThrow()
    expect(() => output.emit('error', Object.assign(new Error('disk full'), { code: 'ENOSPC' }))).toThrow(
      'disk full',
    )
  })

  it('does nothing unless STOP_WHEN_STDIN_CLOSES is set', async () => {
    const { input, output, stops } = watch(false)
    input.end()
    input.resume()
    await new Promise((resolve) => setImmediate(resolve))
    expect(stops()).toBe(0)
    expect(output.listenerCount('error')).toBe(0)
  })
})
