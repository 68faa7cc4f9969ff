import { describe, expect, it } from 'vitest'
import {
  classifyBounce,
  findReplyCode,
  findStatusCode,
  statusFromField,
  statusFromReplyCode,
} from './status-code'

describe('status codes', () => {
  it('reads a Status field with or without a comment, and refuses what is not one', () => {
    expect(statusFromField('5.1.1')).toBe('5.1.1')
    expect(statusFromField(' 4.2.2 (mailbox full)')).toBe('4.2.2')
    expect(statusFromField('5.1.10')).toBe('5.1.10')
    expect(statusFromField('5.01.001')).toBe('5.1.1')
    for (const bad of ['', 'failed', '5.1', '6.1.1', '5.1.1.1', '550']) {
      expect(statusFromField(bad), bad).toBeUndefined()
    }
  })

  it('finds an enhanced code in prose but not inside an IP address or a date', () => {
    expect(findStatusCode('smtp; 550-5.1.1 The email account does not exist')).toBe('5.1.1')
    expect(findStatusCode('host 192.5.1.1 said hello on 5.12.2024')).toBeUndefined()
    expect(findStatusCode('error 4.4.7.')).toBe('4.4.7')
  })

  it('finds a reply code where a server answer sits, not in counts', () => {
    expect(findReplyCode("554: delivery error: dd This user doesn't have an account")).toBe(554)
    expect(findReplyCode('host mx.example.net [192.0.2.1] said: 550 no such user')).toBe(550)
    expect(findReplyCode('smtp;452 too many recipients')).toBe(452)
    expect(findReplyCode('we received 500 messages today')).toBeUndefined()
  })

  it('turns a reply code into a status, with the subject the prose tells', () => {
    expect(statusFromReplyCode(554, "This user doesn't have a yahoo.com account")).toBe('5.1.1')
    expect(statusFromReplyCode(452, 'Mailbox full')).toBe('4.2.2')
    expect(statusFromReplyCode(550, 'rejected by policy')).toBe('5.0.0')
  })

  it('classifies: 5.x.x failed is hard; 4.x.x or delayed is soft; success is none', () => {
    expect(classifyBounce('5.1.1', 'failed')).toBe('hard')
    expect(classifyBounce('5.7.1', 'failed')).toBe('hard')
    expect(classifyBounce('4.2.2', 'failed')).toBe('soft')
    expect(classifyBounce('4.4.7', 'failed')).toBe('soft')
    expect(classifyBounce('5.1.1', 'delayed')).toBe('soft')
    expect(classifyBounce('4.4.1', 'delayed')).toBe('soft')
    expect(classifyBounce('2.0.0', 'delivered')).toBeNull()
    expect(classifyBounce('5.0.0', 'relayed')).toBeNull()
  })

  it('treats a full mailbox (5.2.2) as soft: the address exists', () => {
    expect(classifyBounce('5.2.2', 'failed')).toBe('soft')
  })
})
