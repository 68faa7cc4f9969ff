import { fastestMs } from '@fairlane/testing/fastest-ms'
import { UnrecoverableError } from 'bullmq'
import { describe, expect, it } from 'vitest'
import { MAX_REPLY_LENGTH, redactAddresses, redactError, tidyReply, withRedactedErrors } from './redact'

describe('redactAddresses', () => {
  it('removes addresses from SMTP replies and keeps the rest', () => {
    expect(
      redactAddresses(
        'Message failed: 550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown',
      ),
    ).toBe('Message failed: 550 5.1.1 <<address>>: Recipient address rejected: User unknown')
    expect(redactAddresses('to x.y+tag@sub.example.org, then')).toBe('to <address>, then')
    expect(redactAddresses('451 4.7.1 try later')).toBe('451 4.7.1 try later')
  })

  it('reads a 50,000-character remote reply without an address in linear time', () => {
    const reply = `550 ${'x'.repeat(50_000)}`
    expect(fastestMs(() => redactAddresses(reply))).toBeLessThan(50)
    expect(redactAddresses(`${reply} bob@example.com`)).toBe(`${reply} <address>`)
  })
})

describe('tidyReply', () => {
  it('keeps a reply on one line, without addresses or control characters, and short', () => {
    expect(tidyReply('250 2.0.0 OK: queued as <bob@example.com>\r\n')).toBe(
      '250 2.0.0 OK: queued as <<address>>',
    )
    expect(tidyReply('250-first\r\n250 second\u0000\u001b[31m')).toBe('250-first 250 second [31m')
    const long = tidyReply(`250 ${'x'.repeat(2_000)}`)
    expect(long).toHaveLength(MAX_REPLY_LENGTH)
    expect(long.endsWith('…')).toBe(true)
  })
})

describe('redactError / withRedactedErrors', () => {
  it('redacts message and stack in place, keeping the instance', () => {
    const error = new Error('451 4.7.1 <bob@example.com>: try later')
    expect(redactError(error)).toBe(error)
    expect(error.message).toBe('451 4.7.1 <<address>>: try later')
    expect(error.stack).not.toContain('bob@example.com')
  })

  it('rethrows what the processor threw, redacted and still recognisable', async () => {
    const unrecoverable = new UnrecoverableError('550 5.1.1 <carol@example.com>: no such user')
    const processor = withRedactedErrors(async (_job: unknown) => {
      throw unrecoverable
    })
    const thrown = await processor({}).catch((caught: unknown) => caught)
    expect(thrown).toBe(unrecoverable)
    expect(thrown).toBeInstanceOf(UnrecoverableError)
    expect(JSON.stringify({ m: unrecoverable.message, s: unrecoverable.stack })).not.toContain('carol@')
    await expect(
      withRedactedErrors(async () => {
        throw 'to dave@example.com'
      })(),
    ).rejects.toThrow('to <address>')
    expect(await withRedactedErrors(async (value: number) => value + 1)(1)).toBe(2)
  })
})
