import { describe, expect, it } from 'vitest'
import { redactAddresses } from './redact'

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
})
